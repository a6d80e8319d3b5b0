import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../../src/services/account-store';
import { currentMonth, secondsToNextMonth } from '../../src/domain/quota';
import type { PlanId } from '../../src/domain/plans';
import { createTestApp, type TestApp } from '../helpers/app';
import { MADE_UP_PUBLICATIONS, tableRates } from '../helpers/table-rates';

const NOW = new Date('2024-04-03T12:00:00Z');
const MONTH = currentMonth(NOW);
const rates = tableRates(MADE_UP_PUBLICATIONS);
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({}, { rates, clock: () => NOW });
});
afterAll(() => t.close());

/** An account of this plan with `left` conversions left this month. */
async function keyWithLeft(left: number, plan: PlanId = 'free'): Promise<{ key: string; account: Account }> {
  const created = await t.createAccountKey(plan);
  const limit = { free: 1000, developer: 100_000, business: 2_000_000 }[plan];
  if (left < limit) await t.store.consumeQuota(created.account.id, MONTH, limit, limit - left);
  return created;
}
const used = (account: Account) => t.store.monthlyUsage(account.id, MONTH);

const post: TestApp['postGraphQL'] = (query, options) => t.postGraphQL(query, options);

const codesByPath = (errors: any[] = []) => Object.fromEntries(errors.map((e) => [e.path?.join('.') ?? '', e.extensions.code]));
const CONVERT = 'convert(value: "1", from: "mile", to: "km") { result { value } }';
const datedItems = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ value: String(i + 1), from: 'USD', to: 'JPY', date: '2024-03-28' }));

describe('a GraphQL document is charged for what it delivers', () => {
  it('delivers and charges the fields that succeed when a sibling fails', async () => {
    const { key, account } = await keyWithLeft(10);
    const { body } = await post(`{ a: ${CONVERT} b: ${CONVERT} e: units(category: "nope") { id } }`, { key });
    expect(body.data.a.result.value).toBe('1.609344');
    expect(body.data.b.result.value).toBe('1.609344');
    expect(body.data.e).toBeNull();
    expect(codesByPath(body.errors)).toEqual({ e: 'INVALID_REQUEST' });
    expect(await used(account)).toBe(992);
  });

  it('reports every failing field with its own code, and charges only the one that converted', async () => {
    const { key, account } = await keyWithLeft(10);
    const query = `{
      unit: convert(value: "1", from: "furlongs", to: "m") { category }
      kind: convert(value: "1", from: "m", to: "g") { category }
      currency: convertCurrency(value: "1", from: "XYZ", to: "EUR") { result { value } }
      plan: convertCurrency(value: "1", from: "USD", to: "EUR", date: "2024-03-27") { result { value } }
      digits: convert(value: "1", from: "m", to: "ft", decimals: 41) { category }
      ok: ${CONVERT}
    }`;
    const { status, body } = await post(query, { key });
    expect(status).toBe(200);
    expect(codesByPath(body.errors)).toEqual({
      unit: 'UNKNOWN_UNIT',
      kind: 'INCOMPATIBLE_UNITS',
      currency: 'UNKNOWN_CURRENCY',
      plan: 'PLAN_REQUIRED',
      digits: 'INVALID_REQUEST',
    });
    expect(body.data.ok.result.value).toBe('1.609344');
    expect(await used(account)).toBe(991);
  });

  it('charges exactly the conversion results present in data, batch items included', async () => {
    const { key, account } = await keyWithLeft(100, 'developer');
    const query = `{
      c: ${CONVERT}
      x: convertCurrency(value: "10", from: "USD", to: "GBP", date: "2024-03-28") { result { value } }
      b: batch(items: [{value: "1", from: "m", to: "ft"}, {value: "1", from: "m", to: "kg"}, {value: "2", from: "EUR", to: "USD"}]) {
        results { ... on BatchSuccess { data { __typename } } ... on BatchFailure { error { code } } }
      }
    }`;
    const { body } = await post(query, { key });
    const delivered = [body.data.c, body.data.x].filter(Boolean).length + body.data.b.results.filter((r: any) => r.data).length;
    expect(delivered).toBe(4);
    expect(await used(account)).toBe(100_000 - 100 + delivered);
  });
});

describe('a document’s work is bounded before any is done', () => {
  const batches = (fields: number) =>
    `query($items: [BatchItemInput!]!) { ${Array.from({ length: fields }, (_, i) => `b${i}: batch(items: $items) { succeeded }`).join(' ')} }`;

  it('refuses a document of more than 1,000 conversions whole, computing and charging nothing', async () => {
    const { key, account } = await keyWithLeft(100_000, 'developer');
    const reads = rates.reads.length;
    const { status, body } = await post(batches(2), { key, variables: { items: datedItems(501) } });
    expect(status).toBe(200);
    expect(body.data).toBeUndefined();
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0].extensions).toMatchObject({ code: 'INVALID_REQUEST', status: 400 });
    expect(body.errors[0].message).toMatch(/1,002 conversions .* at most 1,000/);
    expect(rates.reads.length).toBe(reads);
    expect(await used(account)).toBe(0);
  });

  it('refuses an exhausted key’s 50 × 1,000 document the same way', async () => {
    const { key } = await keyWithLeft(0, 'developer');
    const reads = rates.reads.length;
    const { body } = await post(batches(50), { key, variables: { items: datedItems(1000) } });
    expect(body.errors[0].extensions.code).toBe('INVALID_REQUEST');
    expect(body.errors[0].message).toMatch(/50,000 conversions/);
    expect(rates.reads.length).toBe(reads);
  });

  it('gives an exhausted key QUOTA_EXCEEDED for every field and item without computing any', async () => {
    const { key, account } = await keyWithLeft(0, 'developer');
    const reads = rates.reads.length;
    const query = `query($items: [BatchItemInput!]!) {
      a: batch(items: $items) { results { ... on BatchFailure { error { code } } } }
      c: convertCurrency(value: "1", from: "USD", to: "JPY", date: "2024-03-28") { result { value } }
    }`;
    const { headers, body } = await post(query, { key, variables: { items: datedItems(100) } });
    expect(new Set(body.data.a.results.map((r: any) => r.error.code))).toEqual(new Set(['QUOTA_EXCEEDED']));
    expect(body.data.a.results).toHaveLength(100);
    expect(codesByPath(body.errors)).toEqual({ c: 'QUOTA_EXCEEDED' });
    expect(rates.reads.length).toBe(reads);
    expect(headers.get('retry-after')).toBe(String(secondsToNextMonth(NOW)));
    expect(await used(account)).toBe(100_000);
  });

  it('shares the remaining quota among the fields in document order, computing nothing past it', async () => {
    const { key, account } = await keyWithLeft(2, 'developer');
    const reads = rates.reads.length;
    const query = `query($items: [BatchItemInput!]!) {
      a: ${CONVERT}
      b: batch(items: $items) { results { ... on BatchSuccess { data { ... on CurrencyConversion { result { value } } } } ... on BatchFailure { error { code } } } }
      c: ${CONVERT}
    }`;
    const { body } = await post(query, { key, variables: { items: datedItems(3) } });
    expect(body.data.a.result.value).toBe('1.609344');
    expect(body.data.b.results.map((r: any) => r.error?.code ?? 'ok')).toEqual(['ok', 'QUOTA_EXCEEDED', 'QUOTA_EXCEEDED']);
    expect(body.data.c).toBeNull();
    expect(codesByPath(body.errors)).toEqual({ c: 'QUOTA_EXCEEDED' });
    // Only the one item within the quota read its publication.
    expect(rates.reads.slice(reads)).toEqual([['2024-03-28']]);
    expect(await used(account)).toBe(100_000);
  });

  it('lets a failed batch item leave its share to the items after it', async () => {
    const { key, account } = await keyWithLeft(2);
    const items = [
      { value: '1', from: 'm', to: 'kg' },
      { value: '1', from: 'm', to: 'ft' },
      { value: '2', from: 'm', to: 'ft' },
      { value: '3', from: 'm', to: 'ft' },
    ];
    const res = await t.call('POST', '/v1/batch', { key, body: { items } });
    expect(res.body.data.results.map((r: any) => r.error?.code ?? 'ok')).toEqual(['INCOMPATIBLE_UNITS', 'ok', 'ok', 'QUOTA_EXCEEDED']);
    expect(await used(account)).toBe(1000);
  });

  it('applies the same rule to POST /v1/batch: an exhausted key computes nothing', async () => {
    const { key } = await keyWithLeft(0, 'developer');
    const reads = rates.reads.length;
    const res = await t.call('POST', '/v1/batch', { key, body: { items: datedItems(20) } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ succeeded: 0, failed: 20 });
    expect(new Set(res.body.data.results.map((r: any) => r.error.code))).toEqual(new Set(['QUOTA_EXCEEDED']));
    expect(rates.reads.length).toBe(reads);
  });
});
