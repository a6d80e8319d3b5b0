import { describe, expect, it } from 'vitest';
import { PLANS } from '../../../src/domain/plans';
import { createTestApp } from '../../helpers/app';
import {
  BATCH_ITEMS,
  batchAccountsFor,
  batchItems,
  checkBatchAnswer,
  expectedConversion,
  MAX_ITEMS_PER_SECOND,
} from '../../../scripts/bench/batch';

describe('bench batch request', () => {
  it('holds 1,000 items with 1,000 distinct values over several categories', () => {
    const items = batchItems();
    expect(items).toHaveLength(BATCH_ITEMS);
    expect(new Set(items.map((i) => i.value)).size).toBe(BATCH_ITEMS);
    expect(new Set(items.map((i) => `${i.from}>${i.to}`)).size).toBeGreaterThanOrEqual(10);
    for (const item of items) expect(item.value).toMatch(/^-?\d{1,40}\.\d{1,40}$/);
  });

  it('never sends a temperature below absolute zero', () => {
    const celsius = batchItems().filter((i) => i.from === 'celsius');
    expect(celsius.length).toBeGreaterThan(0);
    for (const item of celsius) expect(Number(item.value)).toBeGreaterThan(-273.15);
  });

  it('expects the exact result from the unit definitions', () => {
    expect(expectedConversion({ value: '12.5', from: 'inch', to: 'centimeter' }).result.value).toBe('31.75');
    expect(expectedConversion({ value: '-40', from: 'celsius', to: 'fahrenheit' }).result.value).toBe('-40');
    expect(expectedConversion({ value: '1.5', from: 'pound', to: 'kilogram' })).toEqual({
      input: { value: '1.5', unit: 'pound' },
      result: { value: '0.680388555', unit: 'kilogram' },
      category: 'mass',
    });
  });

  it('is answered by the app exactly as the bench expects, all 1,000 items charged', async () => {
    const now = new Date('2026-11-15T12:00:00Z');
    const t = await createTestApp({}, { clock: () => now });
    try {
      const { key, account } = await t.createAccountKey('business');
      const items = batchItems();
      const response = await t.call('POST', '/v1/batch', { key, body: { items } });
      expect(response.status).toBe(200);
      expect(() => checkBatchAnswer(response.body, items)).not.toThrow();
      expect(await t.store.monthlyUsage(account.id, '2026-11')).toBe(BATCH_ITEMS);
    } finally {
      await t.close();
    }
  });

  it('accepts only an answer where every item succeeded with its exact result', () => {
    const items = batchItems(3);
    const answer = (results: unknown[], succeeded = results.length, failed = 0) => ({ data: { results, succeeded, failed } });
    const good = items.map((item) => ({ kind: 'unit', data: expectedConversion(item) }));
    expect(() => checkBatchAnswer(answer(good), items)).not.toThrow();
    const quotaError = { error: { code: 'QUOTA_EXCEEDED', message: 'The monthly quota is used up.', status: 429, requestId: 'r' } };
    expect(() => checkBatchAnswer(answer([good[0], good[1], quotaError], 2, 1), items)).toThrow(/succeeded/);
    const wrong = { kind: 'unit', data: { ...expectedConversion(items[2]!), result: { value: '1', unit: items[2]!.to } } };
    expect(() => checkBatchAnswer(answer([good[0], good[1], wrong]), items)).toThrow(/item 2/);
  });

  it('gives the batch row enough business accounts for a million items a second over the whole load', () => {
    for (const [warmup, duration] of [
      [2, 10],
      [0, 1],
      [5, 60],
    ] as const) {
      const accounts = batchAccountsFor(warmup, duration);
      expect(accounts * PLANS.business.monthlyQuota).toBeGreaterThanOrEqual(MAX_ITEMS_PER_SECOND * (warmup + duration + 1));
    }
    expect(batchAccountsFor(2, 10)).toBe(7);
  });
});
