import { print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';
import { MADE_UP_PUBLICATIONS, tableRates } from '../helpers/table-rates';
import { CurrencyConvertDocument, RatesAndUnitsDocument } from './generated';

let t: TestApp;
let free: string;
let developer: string;
beforeAll(async () => {
  t = await createTestApp({}, { rates: tableRates(MADE_UP_PUBLICATIONS), clock: () => new Date('2024-04-03T12:00:00Z') });
  free = await t.createKey('free');
  developer = await t.createKey('developer');
});
afterAll(() => t.close());

describe('currency over GraphQL', () => {
  it('converts exactly as REST does', async () => {
    const variables = { value: '100', from: 'usd', to: 'jpy', decimals: 2 };
    const { body } = await t.graphql(print(CurrencyConvertDocument), variables, free);
    const rest = await t.call('POST', '/v1/currency/convert', { key: free, body: variables });
    expect(body.data.convertCurrency).toEqual(rest.body.data);
  });

  it('gives PLAN_REQUIRED and RATE_NOT_FOUND the REST codes and statuses', async () => {
    const plan = await t.graphql(print(CurrencyConvertDocument), { value: '1', from: 'USD', to: 'JPY', date: '2024-03-28' }, free);
    expect(plan.body.errors[0].extensions).toMatchObject({ code: 'PLAN_REQUIRED', status: 403 });
    const missing = await t.graphql(print(CurrencyConvertDocument), { value: '1', from: 'USD', to: 'GBP' }, developer);
    expect(missing.body.errors[0].extensions).toMatchObject({ code: 'RATE_NOT_FOUND', status: 404 });
  });

  it('answers rates and units in one query', async () => {
    const { body } = await t.graphql(print(RatesAndUnitsDocument), { date: '2024-03-29', symbols: ['USD'] }, developer);
    expect(body.errors).toBeUndefined();
    expect(body.data).toEqual({
      rates: { date: '2024-03-28', base: 'EUR', rates: { USD: '1.0811' } },
      latestRates: { date: '2024-04-02' },
      unit: { id: 'kilometer' },
    });
  });
});
