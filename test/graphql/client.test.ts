import { ClientError, GraphQLClient } from 'graphql-request';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';
import { MADE_UP_PUBLICATIONS, tableRates } from '../helpers/table-rates';

/** A real GraphQL client (graphql-request) against the app on a real HTTP server. */
let t: TestApp;
let endpoint: string;
beforeAll(async () => {
  t = await createTestApp({}, { rates: tableRates(MADE_UP_PUBLICATIONS), clock: () => new Date('2024-04-03T12:00:00Z') });
  endpoint = `${t.origin}/graphql`;
});
afterAll(() => t.close());

const ONE_DOCUMENT = /* GraphQL */ `
  query Everything($value: Decimal!) {
    unit(id: "ft") { id name symbol }
    convert(value: $value, from: "ft", to: "m", decimals: 2) { input { value unit } result { value unit } category }
    rates(symbols: ["USD", "JPY"]) { date base rates }
  }
`;

describe('graphql-request against the server', () => {
  it('gets units, a conversion and rates in one document with a key, with the limit headers', async () => {
    const key = await t.createKey();
    const client = new GraphQLClient(endpoint, { headers: { authorization: `Bearer ${key}` } });
    const { data, errors, headers, status } = await client.rawRequest<any>(ONE_DOCUMENT, { value: '10' });
    expect(status).toBe(200);
    expect(errors).toBeUndefined();
    expect(data.unit).toEqual({ id: 'foot', name: 'foot', symbol: 'ft' });
    expect(data.convert).toEqual({ input: { value: '10', unit: 'foot' }, result: { value: '3.05', unit: 'meter' }, category: 'length' });
    expect(data.rates).toEqual({ date: '2024-04-02', base: 'EUR', rates: { USD: '1.0764', JPY: '163.02' } });
    expect(headers.get('x-quota-remaining')).toBe('999');
    expect(headers.get('ratelimit')).toMatch(/^"per-key";r=\d+;t=1$/);
    expect(headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reads the cost extensions: conversions requested and charged, the quota and the rate limit', async () => {
    const key = await t.createKey();
    const client = new GraphQLClient(endpoint, { headers: { authorization: `Bearer ${key}` }, errorPolicy: 'all' });
    const { extensions, headers } = await client.rawRequest<any>(
      '{ a: convert(value: "1", from: "in", to: "cm") { category } b: convert(value: "1", from: "in", to: "kg") { category } c: convert(value: "2", from: "in", to: "cm") { category } }',
    );
    expect(extensions).toEqual({
      cost: { requestedConversions: 3, chargedConversions: 2, requests: 3 },
      quota: { limit: 1000, remaining: 998, resetsAt: '2024-05-01T00:00:00.000Z' },
      rateLimit: { policy: 'per-key', limit: 50, windowSeconds: 1, remaining: expect.any(Number), resetSeconds: 1 },
    });
    expect(headers.get('x-quota-remaining')).toBe('998');
  });

  it('sees each failing field’s code next to the data of the others (errorPolicy all)', async () => {
    const key = await t.createKey();
    const client = new GraphQLClient(endpoint, { headers: { authorization: `Bearer ${key}` }, errorPolicy: 'all' });
    const { data, errors } = await client.rawRequest<any>(
      '{ ok: convert(value: "1", from: "in", to: "cm") { result { value } } bad: convert(value: "1", from: "in", to: "kg") { category } history: rates(date: "2024-03-27") { date } }',
    );
    expect(data.ok.result.value).toBe('2.54');
    expect(data.bad).toBeNull();
    expect(errors?.map((e) => [e.path?.[0], e.extensions?.['code']]).sort()).toEqual([
      ['bad', 'INCOMPATIBLE_UNITS'],
      ['history', 'PLAN_REQUIRED'],
    ]);
  });

  it('raises a ClientError with the code and the answer’s headers when a field fails (default policy)', async () => {
    const client = new GraphQLClient(endpoint);
    const failure = await client.request('{ convert(value: "1", from: "in", to: "cm") { category } }').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ClientError);
    const { response } = failure as ClientError;
    expect(response.errors?.[0]?.extensions?.['code']).toBe('UNAUTHORIZED');
    expect(response.status).toBe(200);
  });
});
