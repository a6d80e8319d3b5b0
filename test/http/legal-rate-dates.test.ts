import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';
import { MADE_UP_PUBLICATIONS, tableRates } from '../helpers/table-rates';

// Weeks after the newest publication held (2024-04-02): the rates held are behind the ECB calendar.
const NOW = new Date('2024-04-20T12:00:00Z');
let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp({}, { rates: tableRates(MADE_UP_PUBLICATIONS), clock: () => NOW });
  key = await t.createKey('developer');
});
afterAll(() => t.close());

describe('a rate on the law alone is the day asked’s own, never stale nor carried forward', () => {
  it.each([
    [{ value: '1', from: 'DEM', to: 'EUR', date: '2024-04-10' }, '2024-04-10'],
    [{ value: '1', from: 'DEM', to: 'FRF', date: '2024-04-10' }, '2024-04-10'],
    [{ value: '1', from: 'DEM', to: 'EUR' }, '2024-04-20'],
  ])('%j', async (body, day) => {
    const { body: answer } = await t.call('POST', '/v1/currency/convert', { key, body });
    expect(answer.data.rate).toMatchObject({ date: day, resolved: { requested: day, publication: day, carriedForward: false } });
    expect(answer.data.rate.resolved.reason ?? null).toBeNull();
    expect(answer.data.rate.source).not.toContain('ecb');
  });

  it('a rate that needs a publication still says the rates held are behind', async () => {
    const { body } = await t.call('POST', '/v1/currency/convert', {
      key,
      body: { value: '1', from: 'DEM', to: 'USD', date: '2024-04-10' },
    });
    expect(body.data.rate).toMatchObject({ date: '2024-04-02', resolved: { carriedForward: true, reason: 'stale' } });
  });
});
