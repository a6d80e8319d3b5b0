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

describe('a rounding that is not one of the modes lists them all', () => {
  const LISTED = `"half_up" is not one of HALF_UP, HALF_EVEN, DOWN, UP, FLOOR, CEILING (did you mean HALF_UP?).`;
  it('in a query string, a body and a batch item', async () => {
    const get = await t.call('GET', '/v1/convert?value=1&from=m&to=ft&rounding=half_up', { key });
    expect(get.body.error).toMatchObject({ code: 'INVALID_REQUEST', param: 'rounding', message: `'rounding' is invalid: ${LISTED}` });
    const post = await t.call('POST', '/v1/convert', { key, body: { value: '1', from: 'm', to: 'ft', rounding: 'half_up' } });
    expect(post.body.error.message).toBe(`'rounding' is invalid: ${LISTED}`);
    const batch = await t.call('POST', '/v1/batch', { key, body: { items: [{ value: '1', from: 'm', to: 'ft', rounding: 'half_up' }] } });
    expect(batch.body.error).toMatchObject({ param: 'items[0].rounding', message: `'items[0].rounding' is invalid: ${LISTED}` });
  });
});

describe('GraphQL’s Decimal says which common mistake a value is', () => {
  it.each([
    ['1'.repeat(41), 'it has 41 digits before the point, at most 40'],
    ['1e30', 'exponent notation (such as 1e30) is not accepted: write every digit out'],
    ['1,5', 'the decimal separator is a point, not a comma: write 1.5'],
  ])('%s: %s', async (value, mistake) => {
    const rule = 'A Decimal is an optional "-", 1 to 40 digits, then optionally "." and 1 to 40 digits';
    const literal = await t.graphql(`{ convert(value: "${value}", from: "m", to: "ft") { category } }`, {}, key);
    expect(literal.body.errors[0]).toMatchObject({ message: `${rule}; ${mistake}.`, extensions: { code: 'INVALID_REQUEST' } });
    const variable = await t.graphql('query ($v: Decimal!) { convert(value: $v, from: "m", to: "ft") { category } }', { v: value }, key);
    expect(variable.body.errors[0].message).toContain(`${rule}; ${mistake}.`);
  });
});
