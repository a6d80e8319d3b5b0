import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';
import { MADE_UP_PUBLICATIONS, tableRates } from '../helpers/table-rates';

/**
 * A currency pair on GET/POST /v1/convert, GraphQL `convert` and batch items is the currency
 * conversion of POST /v1/currency/convert: the same checks, value, rate, publication and date
 * explanation, in the unit conversion's shape (its rate as `exchangeRate`, as a unit expression
 * with currencies answers it). Rates here are made up (test/helpers/table-rates.ts).
 */
let t: TestApp;
let free: string;
let developer: string;
beforeAll(async () => {
  // 2024-04-03 14:00 Berlin: the newest publication held is 2024-04-02.
  t = await createTestApp({}, { rates: tableRates(MADE_UP_PUBLICATIONS), clock: () => new Date('2024-04-03T12:00:00Z') });
  free = await t.createKey('free');
  developer = await t.createKey('developer');
});
afterAll(() => t.close());

const CONVERT = `query($value: Decimal!, $from: String!, $to: String!, $decimals: Int, $rounding: Rounding, $minorUnits: Boolean, $date: Date) {
  convert(value: $value, from: $from, to: $to, decimals: $decimals, rounding: $rounding, minorUnits: $minorUnits, date: $date) {
    input { value unit } result { value unit } category
    exchangeRate { date source value rates fixed { code successor rate since kind source } resolved { requested publication carriedForward reason missingPublications } }
  }
}`;

const query = (request: Record<string, unknown>) => new URLSearchParams(Object.entries(request).map(([k, v]) => [k, String(v)])).toString();

/** The pair through every door: the currency route, GET and POST /v1/convert, GraphQL convert, a batch item. */
async function everyDoor(key: string, request: Record<string, unknown>) {
  const currency = await t.call('POST', '/v1/currency/convert', { key, body: request });
  const get = await t.call('GET', `/v1/convert?${query(request)}`, { key });
  const post = await t.call('POST', '/v1/convert', { key, body: request });
  const graphql = await t.graphql(CONVERT, request, key);
  const batch = await t.call('POST', '/v1/batch', { key, body: { items: [request] } });
  return { currency, get, post, graphql, batch };
}

describe('a currency pair on convert is the currency conversion', () => {
  it.each([
    [{ value: '100', from: 'usd', to: 'JPY' }],
    [{ value: '100', from: 'USD', to: 'JPY', decimals: 2, rounding: 'DOWN' }],
    [{ value: '100', from: 'USD', to: 'JPY', minorUnits: true }],
    [{ value: '2.50', from: 'EUR', to: 'eur' }],
    [{ value: '100', from: 'GBP', to: 'USD', date: '2024-03-30' }],
    [{ value: '75.345', from: 'HRK', to: 'EUR', date: '2024-03-28' }],
    [{ value: '1000', from: 'DEM', to: 'USD', date: '2024-03-28' }],
  ])('%j: the same value, rate, publication and explanation through every door', async (request) => {
    const { currency, get, post, graphql, batch } = await everyDoor(developer, request);
    expect(currency.status).toBe(200);
    const { input, result, rate } = currency.body.data;
    const { rates, ...exchangeRate } = get.body.data.exchangeRate;
    expect(get.status).toBe(200);
    expect(get.body.data).toMatchObject({ input, result, category: 'derived' });
    expect(exchangeRate).toEqual(rate);
    // Units per euro of both currencies, as an expression with currencies lists them.
    expect(Object.keys(rates)).toEqual([...new Set([input.unit, result.unit])].sort());
    expect(rates['EUR'] ?? '1').toBe('1');
    expect(post.body).toEqual(get.body);
    expect(graphql.body.errors).toBeUndefined();
    expect(graphql.body.data.convert).toEqual(get.body.data);
    // A batch item keeps the contract's CurrencyConversion shape, from the same conversion, and says it is one.
    expect(batch.body.data.results[0]).toEqual({ kind: 'currency', ...currency.body });
  });

  it('answers exactly what the expression USD^1 answers for USD', async () => {
    const pair = await t.call('GET', '/v1/convert?value=100&from=USD&to=JPY&date=2024-03-28', { key: developer });
    const expression = await t.call('GET', `/v1/convert?value=100&from=${encodeURIComponent('USD^1')}&to=JPY&date=2024-03-28`, {
      key: developer,
    });
    expect(pair.body).toEqual(expression.body);
  });

  it('charges one conversion per delivered conversion, and none for a refusal', async () => {
    const key = await t.createKey('free');
    const first = await t.call('GET', '/v1/convert?value=1&from=USD&to=JPY', { key });
    const remaining = Number(first.headers.get('x-quota-remaining'));
    expect(remaining).toBe(999);
    const refused = await t.call('GET', '/v1/convert?value=1&from=USD&to=XYZ', { key });
    expect(refused.status).toBe(400);
    const again = await t.call('POST', '/v1/convert', { key, body: { value: '1', from: 'USD', to: 'JPY' } });
    expect(Number(again.headers.get('x-quota-remaining'))).toBe(998);
  });

  it.each([
    [{ value: '1', from: 'USD', to: 'EUR', date: '2024-03-28' }, 'free', 403, 'PLAN_REQUIRED', 'date'],
    [{ value: '1', from: 'GPB', to: 'EUR' }, 'free', 400, 'UNKNOWN_CURRENCY', 'from'],
    [{ value: '1', from: 'USD', to: 'JPY', minorUnits: true, decimals: 2 }, 'free', 400, 'INVALID_REQUEST', 'minorUnits'],
    [{ value: '1', from: 'RUB', to: 'EUR', date: '2024-03-28' }, 'developer', 404, 'RATE_NOT_FOUND', 'from'],
    [{ value: '1', from: 'USD', to: 'EUR', date: '1998-12-31' }, 'developer', 404, 'RATE_NOT_FOUND', 'date'],
  ] as const)('%j on %s is refused as the currency route refuses it', async (request, plan, status, code, param) => {
    const { currency, get, post, graphql, batch } = await everyDoor(plan === 'free' ? free : developer, request);
    expect(currency.body.error).toMatchObject({ status, code, param });
    for (const answer of [get, post]) {
      expect(answer.status).toBe(status);
      expect(answer.body.error).toEqual({ ...currency.body.error, requestId: answer.body.error.requestId });
    }
    // The same words, but for the listing a hint names: a route on REST, a field on GraphQL.
    const graphqlWords = currency.body.error.message.replace('See GET /v1/currencies.', 'See the `currencies` field.');
    expect(graphql.body.errors[0]).toMatchObject({ message: graphqlWords, extensions: { code, status } });
    expect(batch.body.data.results[0].error).toMatchObject({ code, message: currency.body.error.message });
    expect(batch.body.data.results[0].kind).toBe('currency');
  });

  it('refuses minorUnits on a unit conversion, naming it', async () => {
    const res = await t.call('GET', '/v1/convert?value=1&from=mile&to=km&minorUnits=true', { key: free });
    expect(res.body.error).toMatchObject({ code: 'INVALID_REQUEST', param: 'minorUnits' });
  });
});

describe('error messages name the caller’s API', () => {
  it('REST names routes; GraphQL names fields, never a route', async () => {
    const rest = await t.call('GET', '/v1/convert?value=1&from=furlongs&to=m', { key: free });
    expect(rest.body.error.message).toMatch(/See GET \/v1\/units\.$/);
    const graphql = await t.graphql(CONVERT, { value: '1', from: 'furlongs', to: 'm' }, free);
    expect(graphql.body.errors[0].message).toMatch(/See the `units` field\.$/);
    const batch = await t.graphql(
      '{ batch(items: [{value: "1", from: "furlongs", to: "m"}]) { results { ... on BatchFailure { error { message } } } } }',
      {},
      free,
    );
    expect(batch.body.data.batch.results[0].error.message).toMatch(/See the `units` field\.$/);
    const restBatch = await t.call('POST', '/v1/batch', { key: free, body: { items: [{ value: '1', from: 'furlongs', to: 'm' }] } });
    expect(restBatch.body.data.results[0].error.message).toMatch(/See GET \/v1\/units\.$/);
    const currency = await t.graphql('{ currency(code: "GPB") { code } }', {}, free);
    expect(currency.body.errors[0].message).toBe("Currency 'GPB' is not supported (did you mean GBP?). See the `currencies` field.");
    for (const error of [graphql.body.errors[0], batch.body.data.batch.results[0].error, currency.body.errors[0]])
      expect(error.message).not.toMatch(/GET |POST |\/v1\//);
  });
});
