import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';
import { MADE_UP_PUBLICATIONS, tableRates } from '../helpers/table-rates';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp({}, { rates: tableRates(MADE_UP_PUBLICATIONS), clock: () => new Date('2024-04-03T12:00:00Z') });
  key = await t.createKey('developer');
});
afterAll(() => t.close());

const REST_WORDS = "Currency 'BTC' is not supported. See GET /v1/currencies.";
const GRAPHQL_WORDS = "Currency 'BTC' is not supported. See the `currencies` field.";

describe('an unknown currency code gets the same words on every route, and the code its position fixes', () => {
  it.each([
    ['GET', '/v1/currencies/BTC', undefined, 404, 'NOT_FOUND', 'code'],
    ['GET', '/v1/currency/rates?base=BTC', undefined, 400, 'UNKNOWN_CURRENCY', 'base'],
    ['GET', '/v1/currency/rates?symbols=USD,BTC', undefined, 400, 'UNKNOWN_CURRENCY', 'symbols'],
    ['GET', '/v1/convert?value=1&from=BTC&to=EUR', undefined, 400, 'UNKNOWN_CURRENCY', 'from'],
    ['POST', '/v1/currency/convert', { value: '1', from: 'BTC', to: 'EUR' }, 400, 'UNKNOWN_CURRENCY', 'from'],
    ['POST', '/v1/convert', { value: '1', from: 'EUR', to: 'BTC' }, 400, 'UNKNOWN_CURRENCY', 'to'],
  ] as const)('%s %s: %i %s, pointing to the registry', async (method, url, body, status, code, param) => {
    const answer = await t.call(method, url, body === undefined ? { key } : { key, body });
    expect(answer.status).toBe(status);
    expect(answer.body.error).toMatchObject({ code, param, message: REST_WORDS });
  });

  it.each([
    ['{ currency(code: "BTC") { code } }', 'NOT_FOUND'],
    ['{ rates(base: "BTC") { date } }', 'UNKNOWN_CURRENCY'],
    ['{ convertCurrency(value: "1", from: "BTC", to: "EUR") { result { value } } }', 'UNKNOWN_CURRENCY'],
    ['{ convert(value: "1", from: "BTC", to: "EUR") { category } }', 'UNKNOWN_CURRENCY'],
  ])('GraphQL %s: %s, pointing to the `currencies` field', async (query, code) => {
    const { body } = await t.graphql(query, {}, key);
    expect(body.errors[0]).toMatchObject({ message: GRAPHQL_WORDS, extensions: { code } });
  });
});

describe('a temperature written as a bare letter gets the unit with the degree sign', () => {
  it.each([
    ['C', '°C (celsius)'],
    ['F', '°F (fahrenheit)'],
  ])('%s: did you mean %s?', async (name, suggestion) => {
    const rest = await t.call('GET', `/v1/convert?value=1&from=${name}&to=kelvin`, { key });
    expect(rest.body.error).toMatchObject({
      code: 'UNKNOWN_UNIT',
      param: 'from',
      message: expect.stringContaining(`did you mean ${suggestion}?`),
    });
    const path = await t.call('GET', `/v1/units/${name}`);
    expect(path.body.error).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining(`did you mean ${suggestion}?`) });
    const { body } = await t.graphql(`{ convert(value: "1", from: "${name}", to: "kelvin") { category } }`, {}, key);
    expect(body.errors[0].message).toContain(`did you mean ${suggestion}?`);
  });
});
