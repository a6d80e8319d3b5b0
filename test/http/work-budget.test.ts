import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_REQUEST_WORK } from '../../src/domain/work';
import { createTestApp, type TestApp } from '../helpers/app';

const MONTH = new Date().toISOString().slice(0, 7);
const FORTY = '1234567890'.repeat(4);
const items = (n: number, value: string) =>
  Array.from({ length: n }, (_, i) => ({ value, from: i % 2 ? 'rad^12*mrad^-12' : 'radian^12 · milliradians^-12', to: 'm' }));

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ KEY_RATE_LIMIT: '3' });
});
afterAll(() => t.close());

describe('the work budget of a batch', () => {
  it('refuses a batch past the budget before any item is computed, charging nothing, and spends the rate limit', async () => {
    const { key, account } = await t.createAccountKey('business');
    const body = { items: items(1000, `${FORTY}.5`) };
    const refused = await t.call('POST', '/v1/batch', { key, body });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'INVALID_REQUEST', param: 'items', status: 400 });
    expect(refused.body.error.message).toContain(MAX_REQUEST_WORK.toLocaleString('en-US'));
    expect(await t.store.monthlyUsage(account.id, MONTH)).toBe(0);
    await t.call('POST', '/v1/batch', { key, body });
    await t.call('POST', '/v1/batch', { key, body });
    const limited = await t.call('POST', '/v1/batch', { key, body });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
  });

  it('answers a batch within the budget item by item', async () => {
    const key = await t.createKey('free');
    const res = await t.call('POST', '/v1/batch', { key, body: { items: items(1000, FORTY) } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ succeeded: 0, failed: 1000 });
    expect(res.body.data.results[999].error.code).toBe('INCOMPATIBLE_UNITS');
  });

  it('refuses the same batch through GraphQL with the same code', async () => {
    const key = await t.createKey('business');
    // GraphQL bodies stop at 64 KiB: 40 expressions at the bounds with 80-digit values are past the budget too.
    const bound = 'm^12*kg^12*s^12*A^12*K^12*mol^12*cd^12*J^12*W^12*N^12*Pa^12*Hz^12*V^12*C^12*L^12*g^12';
    const heavy = Array.from({ length: 40 }, () => ({ value: `${FORTY}.${FORTY}`, from: bound, to: bound }));
    const res = await t.postGraphQL('query($items: [BatchItemInput!]!) { batch(items: $items) { succeeded } }', {
      key,
      variables: { items: heavy },
    });
    expect(res.body.data.batch).toBeNull();
    expect(res.body.errors[0].extensions.code).toBe('INVALID_REQUEST');
  });
});
