import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../../src/services/account-store';
import { currentMonth } from '../../src/domain/quota';
import { createTestApp, type TestApp } from '../helpers/app';
import { MADE_UP_PUBLICATIONS, tableRates } from '../helpers/table-rates';

const NOW = new Date('2024-04-03T12:00:00Z');
const MONTH = currentMonth(NOW);
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({}, { rates: tableRates(MADE_UP_PUBLICATIONS), clock: () => NOW });
});
afterAll(() => t.close());

/** A free account (1,000 a month) with `left` conversions left this month. */
async function accountWithLeft(left: number): Promise<{ key: string; account: Account; keyId: string }> {
  const created = await t.createAccountKey('free');
  if (left < 1000) await t.store.consumeQuota(created.account.id, MONTH, 1000, 1000 - left);
  return created;
}
const used = (account: Account) => t.store.monthlyUsage(account.id, MONTH);
const CONVERT = '/v1/convert?value=1&from=mile&to=km';

describe('the monthly quota', () => {
  it('is reported on every keyed response', async () => {
    const { key } = await accountWithLeft(10);
    const res = await t.call('GET', CONVERT, { key });
    expect(res.headers.get('x-quota-limit')).toBe('1000');
    expect(res.headers.get('x-quota-remaining')).toBe('9');
    expect(Number(res.headers.get('x-quota-reset'))).toBe(27 * 86400 + 12 * 3600);
    const failed = await t.call('GET', '/v1/convert?value=1&from=mile&to=gram', { key });
    expect(failed.headers.get('x-quota-remaining')).toBe('9');
  });

  it('with 1 conversion left, lets exactly one of 20 parallel conversions through', async () => {
    const { key, account } = await accountWithLeft(1);
    const answers = await Promise.all(Array.from({ length: 20 }, () => t.call('GET', CONVERT, { key })));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 429)).toHaveLength(19);
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused.body.error.code).toBe('QUOTA_EXCEEDED');
    expect(Number(refused.headers.get('retry-after'))).toBe(27 * 86400 + 12 * 3600);
    expect(await used(account)).toBe(1000);
  });

  it('is never touched by failed conversions', async () => {
    const { key, account } = await accountWithLeft(1000);
    await t.call('GET', '/v1/convert?value=1&from=mile&to=gram', { key });
    await t.call('GET', '/v1/convert?value=x&from=mile&to=km', { key });
    await t.call('POST', '/v1/currency/convert', { key, body: { value: '1', from: 'USD', to: 'GBP' } });
    await t.call('POST', '/v1/batch', { key, body: { items: [{ value: '1', from: 'a', to: 'b' }] } });
    expect(await used(account)).toBe(0);
  });

  it('is not used by listing rates', async () => {
    const { key, account } = await accountWithLeft(1000);
    const res = await t.call('GET', '/v1/currency/rates', { key });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-quota-remaining')).toBe('1000');
    expect(await used(account)).toBe(0);
  });

  it('costs one per successful batch item; items past the quota fail with QUOTA_EXCEEDED', async () => {
    const { key, account } = await accountWithLeft(3);
    const items = [
      { value: '1', from: 'mile', to: 'km' },
      { value: '1', from: 'mile', to: 'gram' },
      { value: '1', from: 'USD', to: 'EUR' },
      { value: '2', from: 'mile', to: 'km' },
      { value: '3', from: 'mile', to: 'km' },
    ];
    const res = await t.call('POST', '/v1/batch', { key, body: { items } });
    expect(res.status).toBe(200);
    const codes = res.body.data.results.map((r: { error?: { code: string } }) => r.error?.code ?? 'ok');
    expect(codes).toEqual(['ok', 'INCOMPATIBLE_UNITS', 'ok', 'ok', 'QUOTA_EXCEEDED']);
    expect(res.body.data).toMatchObject({ succeeded: 3, failed: 2 });
    expect(await used(account)).toBe(1000);
    expect(res.headers.get('x-quota-remaining')).toBe('0');
  });

  it('counts each conversion field of a GraphQL document', async () => {
    const { key, account } = await accountWithLeft(1000);
    const query =
      '{ a: convert(value: "1", from: "m", to: "ft") { category } b: convert(value: "2", from: "m", to: "ft") { category } c: convert(value: "2", from: "m", to: "kg") { category } }';
    const { body } = await t.graphql(query, {}, key);
    expect(body.data.a).not.toBeNull();
    expect(body.data.c).toBeNull();
    expect(await used(account)).toBe(2);
  });

  it('answers QUOTA_EXCEEDED over GraphQL with the same code', async () => {
    const { key } = await accountWithLeft(0);
    const { body } = await t.graphql('{ convert(value: "1", from: "m", to: "ft") { category } }', {}, key);
    expect(body.errors[0].extensions).toMatchObject({ code: 'QUOTA_EXCEEDED', status: 429 });
  });
});
