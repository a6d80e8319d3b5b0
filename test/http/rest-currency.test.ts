import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';
import { MADE_UP_PUBLICATIONS, tableRates } from '../helpers/table-rates';

let t: TestApp;
let free: string;
let developer: string;
const rates = tableRates(MADE_UP_PUBLICATIONS);
beforeAll(async () => {
  // 2024-04-03 14:00 Berlin: the newest publication held is 2024-04-02.
  t = await createTestApp({}, { rates, clock: () => new Date('2024-04-03T12:00:00Z') });
  free = await t.createKey('free');
  developer = await t.createKey('developer');
});
afterAll(() => t.close());

const convert = (key: string, body: Record<string, unknown>) => t.call('POST', '/v1/currency/convert', { key, body });

describe('POST /v1/currency/convert', () => {
  it('converts with the latest publication, codes case-insensitive in and upper-case out', async () => {
    const res = await convert(free, { value: '100', from: 'usd', to: 'jpy', decimals: 2 });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      input: { value: '100', unit: 'USD' },
      result: { value: '15144.93', unit: 'JPY' },
      rate: {
        date: '2024-04-02',
        source: 'ecb',
        value: '151.4492753623188405797101449275362318841',
        fixed: [],
        resolved: {
          requested: '2024-04-03',
          publication: '2024-04-02',
          carriedForward: true,
          reason: 'not-yet-published',
          missingPublications: null,
        },
      },
    });
  });

  it('allows EUR to EUR at the rate 1', async () => {
    expect((await convert(free, { value: '2.50', from: 'EUR', to: 'eur' })).body.data.rate.value).toBe('1');
  });

  it('needs the Developer plan for a date (403 PLAN_REQUIRED)', async () => {
    const res = await convert(free, { value: '1', from: 'USD', to: 'JPY', date: '2024-03-28' });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'PLAN_REQUIRED', param: 'date' });
  });

  it.each([
    ['2024-03-28', '2024-03-28'],
    ['2024-03-29', '2024-03-28'],
    ['2024-03-31', '2024-03-28'],
    ['2024-04-03', '2024-04-02'],
  ])('resolves the date %s to the publication of %s', async (date, used) => {
    const res = await convert(developer, { value: '1', from: 'USD', to: 'JPY', date });
    expect(res.body.data.rate.date).toBe(used);
  });

  it.each([
    [{ from: 'XYZ', to: 'USD' }, 400, 'UNKNOWN_CURRENCY', 'from'],
    [{ from: 'USD', to: 'dollars' }, 400, 'INVALID_REQUEST', 'to'],
    [{ from: 'USD', to: 'GBP' }, 404, 'RATE_NOT_FOUND', 'to'],
    [{ from: 'RUB', to: 'USD', date: '2024-03-28' }, 404, 'RATE_NOT_FOUND', 'from'],
    [{ from: 'USD', to: 'JPY', date: '1998-12-31' }, 404, 'RATE_NOT_FOUND', 'date'],
    [{ from: 'USD', to: 'JPY', date: '2024-03-26' }, 404, 'RATE_NOT_FOUND', 'date'],
    [{ from: 'USD', to: 'JPY', date: '2024-04-04' }, 404, 'RATE_NOT_FOUND', 'date'],
    [{ from: 'USD', to: 'JPY', date: '2024-02-30' }, 400, 'INVALID_REQUEST', 'date'],
    [{ from: 'USD', to: 'JPY', rounding: 'UP' }, 200, undefined, undefined],
  ])('answers %j with %i %s', async (pair, status, code, param) => {
    const res = await convert(developer, { value: '1', ...pair });
    expect(res.status).toBe(status);
    if (code) expect(res.body.error).toMatchObject({ code, param });
  });

  it('is a unit error to send a unit to the currency route', async () => {
    const res = await convert(free, { value: '1', from: 'meter', to: 'USD' });
    expect(res.body.error).toMatchObject({ code: 'INVALID_REQUEST', param: 'from' });
  });
});

describe('minorUnits rounds a currency result to its ISO 4217 minor units', () => {
  it('answers 100 USD in JPY as a whole number, in REST, in a batch and in GraphQL alike', async () => {
    const res = await convert(free, { value: '100', from: 'USD', to: 'JPY', minorUnits: true });
    expect(res.body.data.result).toEqual({ value: '15145', unit: 'JPY' });
    const down = await convert(free, { value: '100', from: 'USD', to: 'JPY', minorUnits: true, rounding: 'DOWN' });
    expect(down.body.data.result.value).toBe('15144');
    const batch = await t.call('POST', '/v1/batch', {
      key: free,
      body: {
        items: [
          { value: '100', from: 'USD', to: 'JPY', minorUnits: true },
          { value: '1', from: 'm', to: 'cm', minorUnits: true },
        ],
      },
    });
    expect(batch.body.data.results[0]).toEqual({ kind: 'currency', data: res.body.data });
    expect(batch.body.data.results[1].error).toMatchObject({ code: 'INVALID_REQUEST', param: 'minorUnits' });
    const { body } = await t.graphql(
      '{ convertCurrency(value: "100", from: "USD", to: "JPY", minorUnits: true) { result { value } } }',
      {},
      free,
    );
    expect(body.data.convertCurrency.result.value).toBe('15145');
  });

  it('is INVALID_REQUEST naming minorUnits together with decimals', async () => {
    const res = await convert(free, { value: '100', from: 'USD', to: 'JPY', minorUnits: true, decimals: 2 });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'INVALID_REQUEST', param: 'minorUnits' });
    const { body } = await t.graphql(
      '{ convertCurrency(value: "100", from: "USD", to: "JPY", minorUnits: true, decimals: 2) { result { value } } }',
      {},
      free,
    );
    expect(body.errors[0].extensions).toMatchObject({ code: 'INVALID_REQUEST', status: 400 });
  });
});

describe('typos of currency codes and parameter names get suggestions, REST and GraphQL alike', () => {
  it('suggests GBP for GPB', async () => {
    const rest = await convert(free, { value: '1', from: 'USD', to: 'GPB' });
    expect(rest.status).toBe(400);
    expect(rest.body.error).toMatchObject({
      code: 'UNKNOWN_CURRENCY',
      param: 'to',
      message: "Currency 'GPB' is not supported (did you mean GBP?). See GET /v1/currencies.",
    });
    const { body } = await t.graphql('{ convertCurrency(value: "1", from: "USD", to: "GPB") { result { value } } }', {}, free);
    expect(body.errors[0]).toMatchObject({
      message: "Currency 'GPB' is not supported (did you mean GBP?). See the `currencies` field.",
      extensions: { code: 'UNKNOWN_CURRENCY', param: 'to' },
    });
    const listing = await t.call('GET', '/v1/currency/rates?symbols=USD,GPB', { key: free });
    expect(listing.body.error).toMatchObject({
      code: 'UNKNOWN_CURRENCY',
      param: 'symbols',
      message: expect.stringContaining('(did you mean GBP?)'),
    });
    const registry = await t.call('GET', '/v1/currencies/GPB');
    expect(registry.body.error).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('(did you mean GBP?)') });
  });

  it('suggests symbols for symbol: a query parameter in REST, an argument in GraphQL', async () => {
    const rest = await t.call('GET', '/v1/currency/rates?symbol=USD', { key: free });
    expect(rest.status).toBe(400);
    expect(rest.body.error).toMatchObject({
      code: 'INVALID_REQUEST',
      param: 'symbol',
      message: "Unknown query parameter 'symbol' (did you mean symbols?).",
    });
    const body = await convert(free, { value: '1', from: 'USD', to: 'GBP', decimal: 2 });
    expect(body.body.error).toMatchObject({
      code: 'INVALID_REQUEST',
      param: 'decimal',
      message: "Unknown field 'decimal' (did you mean decimals?).",
    });
    const graphql = await t.graphql('{ rates(symbol: ["USD"]) { date } }', {}, free);
    expect(graphql.body.errors[0]).toMatchObject({
      message: 'Unknown argument "symbol" on field "Query.rates". Did you mean "symbols"?',
      extensions: { code: 'INVALID_REQUEST' },
    });
  });
});

describe('GET /v1/currency/rates', () => {
  it('lists the latest publication with a key, EUR included', async () => {
    const res = await t.call('GET', '/v1/currency/rates', { key: free });
    expect(res.body.data).toMatchObject({
      date: '2024-04-02',
      base: 'EUR',
      source: 'ecb',
      amount: null,
      rates: { EUR: '1', USD: '1.0764', JPY: '163.02' },
    });
    expect(Object.keys(res.body.data.rates)).toEqual(['EUR', 'USD', 'JPY']);
    expect((await t.call('GET', '/v1/currency/rates')).status).toBe(401);
  });

  it('lists chosen symbols of a past day on the Developer plan', async () => {
    const res = await t.call('GET', '/v1/currency/rates?date=2024-03-30&symbols=gbp,USD', { key: developer });
    expect(res.body.data).toMatchObject({ date: '2024-03-28', base: 'EUR', source: 'ecb', rates: { GBP: '0.85550', USD: '1.0811' } });
    expect(res.body.data.rates).toEqual({ GBP: '0.85550', USD: '1.0811' });
    expect((await t.call('GET', '/v1/currency/rates?date=2024-03-30', { key: free })).status).toBe(403);
    expect((await t.call('GET', '/v1/currency/rates?symbols=USD,XYZ', { key: free })).body.error.code).toBe('UNKNOWN_CURRENCY');
  });
});

describe('GET /v1/currency/rates/latest, a public CDN-friendly resource', () => {
  it('needs no key, allows any origin and may be cached until the next publication', async () => {
    const res = await t.call('GET', '/v1/currency/rates/latest', { headers: { origin: 'https://example.org' } });
    expect(res.status).toBe(200);
    expect(res.body.data.date).toBe('2024-04-02');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(res.headers.get('cache-control')).toBe('public, max-age=1800');
    expect(res.headers.get('etag')).toMatch(/^"[\w-]+"$/);
  });

  it('lets a browser page read the ETag, the limit headers and the request id', async () => {
    for (const headers of [{}, { 'if-none-match': '"other"' }] as Record<string, string>[]) {
      const res = await t.call('GET', '/v1/currency/rates/latest', { headers: { origin: 'https://example.org', ...headers } });
      const exposed = res.headers
        .get('access-control-expose-headers')!
        .split(',')
        .map((h) => h.trim().toLowerCase());
      expect(exposed).toEqual(expect.arrayContaining(['etag', 'ratelimit', 'ratelimit-policy', 'retry-after', 'x-request-id']));
    }
  });

  it('answers 304 to If-None-Match with the current ETag', async () => {
    const etag = (await t.call('GET', '/v1/currency/rates/latest')).headers.get('etag')!;
    const res = await t.call('GET', '/v1/currency/rates/latest', { headers: { 'if-none-match': etag } });
    expect(res.status).toBe(304);
    expect(res.body).toBeUndefined();
    expect(res.headers.get('etag')).toBe(etag);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect((await t.call('GET', '/v1/currency/rates/latest', { headers: { 'if-none-match': '"other"' } })).status).toBe(200);
  });

  it('refuses any query parameter, pointing to the keyed route, still with CORS', async () => {
    const res = await t.call('GET', '/v1/currency/rates/latest?date=2024-03-28');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_REQUEST');
    expect(res.body.error.message).toContain('/v1/currency/rates');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('answers a CORS preflight', async () => {
    const response = await t.call('OPTIONS', '/v1/currency/rates/latest', {
      headers: { origin: 'https://example.org', 'access-control-request-method': 'GET' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-methods')).toBe('GET, HEAD');
  });
});

describe('currency items in POST /v1/batch', () => {
  it('mix with unit items, each answered on its own', async () => {
    const items = [
      { value: '100', from: 'USD', to: 'EUR', decimals: 2 },
      { value: '1', from: 'mile', to: 'km' },
      { value: '1', from: 'USD', to: 'XYZ' },
      { value: '1', from: 'USD', to: 'JPY', date: '2024-03-28' },
    ];
    const res = await t.call('POST', '/v1/batch', { key: free, body: { items } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ succeeded: 2, failed: 2 });
    expect(res.body.data.results[0].data).toMatchObject({ result: { value: '92.90', unit: 'EUR' }, rate: { date: '2024-04-02' } });
    expect(res.body.data.results[2].error).toMatchObject({ code: 'UNKNOWN_CURRENCY', param: 'to' });
    expect(res.body.data.results[3].error).toMatchObject({ code: 'PLAN_REQUIRED' });
  });

  it('read all the publications a batch needs in one cache read', async () => {
    const days = ['2024-03-27', '2024-03-28', '2024-03-29', '2024-03-30', '2024-04-01', '2024-04-02', '2024-04-03'];
    const items = Array.from({ length: 1000 }, (_, i) => ({ value: String(i), from: 'USD', to: 'JPY', date: days[i % days.length] }));
    rates.reads.length = 0;
    const res = await t.call('POST', '/v1/batch', { key: developer, body: { items } });
    expect(res.body.data.succeeded).toBe(1000);
    expect(rates.reads).toEqual([['2024-03-27', '2024-03-28', '2024-04-02']]);
  });
});

describe('with no rates loaded', () => {
  it('answers 503 SERVICE_UNAVAILABLE with Retry-After, while units keep working', async () => {
    const empty = await createTestApp();
    const key = await empty.createKey();
    const res = await empty.call('POST', '/v1/currency/convert', { key, body: { value: '1', from: 'USD', to: 'EUR' } });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await empty.call('GET', '/v1/currency/rates/latest')).status).toBe(503);
    expect((await empty.call('GET', '/v1/convert?value=1&from=mile&to=km', { key })).status).toBe(200);
    expect((await empty.call('GET', '/v1/health')).body.data.status).toBe('degraded');
    await empty.close();
  });
});
