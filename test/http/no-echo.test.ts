import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';
import { MADE_UP_PUBLICATIONS, tableRates } from '../helpers/table-rates';

/** A key pasted where an input belongs must never come back; nor must any long input, whole. */
let t: TestApp;
let key: string;
let secret: string;
const LONG = `${'q'.repeat(60)}-tail`;

beforeAll(async () => {
  t = await createTestApp(
    { PUBLIC_RATE_LIMIT: '1000', KEY_RATE_LIMIT: '1000' },
    { rates: tableRates(MADE_UP_PUBLICATIONS), clock: () => new Date('2024-04-03T12:00:00Z') },
  );
  key = await t.createKey('developer');
  // The random part: what must not appear anywhere in an answer.
  secret = key.slice('msr_test_'.length, 'msr_test_'.length + 20);
});
afterAll(() => t.close());

const rest = (method: string, url: string, body?: unknown) => t.call(method, url, { key, ...(body === undefined ? {} : { body }) });

describe('REST error messages never echo a key or a long input', () => {
  it.each([
    ['an unknown unit', (k: string) => rest('GET', `/v1/convert?value=1&from=${k}&to=meter`), 'UNKNOWN_UNIT'],
    ['an unknown unit in a body', (k: string) => rest('POST', '/v1/convert', { value: '1', from: 'meter', to: k }), 'UNKNOWN_UNIT'],
    ['a batch item', (k: string) => rest('POST', '/v1/batch', { items: [{ value: '1', from: k, to: 'meter' }] }), undefined],
    ['a unit path', (k: string) => rest('GET', `/v1/units/${k}`), 'NOT_FOUND'],
    ['a category path', (k: string) => rest('GET', `/v1/categories/${k}`), 'NOT_FOUND'],
    ['a category filter', (k: string) => rest('GET', `/v1/units?category=${k}`), 'INVALID_REQUEST'],
    ['an unknown route', (k: string) => rest('GET', `/v1/${k}`), 'NOT_FOUND'],
    ['a wrong method on a path with a key in it', (k: string) => rest('DELETE', `/v1/units/${k}`), 'METHOD_NOT_ALLOWED'],
    ['an unknown query parameter', (k: string) => rest('GET', `/v1/convert?value=1&from=m&to=ft&${k}=1`), 'INVALID_REQUEST'],
    ['an unknown body field', (k: string) => rest('POST', '/v1/convert', { value: '1', from: 'm', to: 'ft', [k]: 1 }), 'INVALID_REQUEST'],
    ['an enum value', (k: string) => rest('GET', `/v1/convert?value=1&from=m&to=ft&decimals=2&rounding=${k}`), 'INVALID_REQUEST'],
    ['a value', (k: string) => rest('POST', '/v1/convert', { value: k, from: 'm', to: 'ft' }), 'INVALID_REQUEST'],
    ['a currency', (k: string) => rest('GET', `/v1/currency/rates?symbols=${k}`), 'INVALID_REQUEST'],
  ])('%s', async (_, send, code) => {
    for (const input of [key, LONG]) {
      const res = await send(input);
      const text = JSON.stringify(res.body);
      if (code) expect(res.body.error.code).toBe(code);
      expect(text).not.toContain(secret);
      expect(text).not.toContain(LONG.slice(0, 40));
    }
  });

  it('still quotes a short unknown input, so the caller sees what was wrong', async () => {
    const res = await rest('GET', '/v1/convert?value=1&from=furlongs&to=meter');
    expect(res.body.error.message).toBe("Unit 'furlongs' is not known. See GET /v1/units.");
    const pasted = await rest('GET', `/v1/convert?value=1&from=${key}&to=meter`);
    expect(pasted.body.error.message).toBe("Unit 'msr_…' is not known. See GET /v1/units.");
    const long = await rest('GET', `/v1/units/${LONG}`);
    expect(long.body.error.message).toBe(`Unit '${'q'.repeat(31)}…' does not exist. See GET /v1/units.`);
  });
});

describe('GraphQL error messages never echo a key or a long input', () => {
  it.each([
    [
      'an unknown unit literal',
      (k: string) => t.graphql(`{ convert(value: "1", from: ${JSON.stringify(k)}, to: "m") { category } }`, {}, key),
    ],
    [
      'an unknown unit variable',
      (k: string) => t.graphql('query($f: String!) { convert(value: "1", from: $f, to: "m") { category } }', { f: k }, key),
    ],
    ['a unit lookup', (k: string) => t.graphql('query($id: String!) { unit(id: $id) { id } }', { id: k })],
    [
      'an enum variable',
      (k: string) =>
        t.graphql(
          'query($r: Rounding) { convert(value: "1", from: "m", to: "ft", decimals: 1, rounding: $r) { category } }',
          { r: k },
          key,
        ),
    ],
    [
      'a Decimal variable',
      (k: string) => t.graphql('query($v: Decimal!) { convert(value: $v, from: "m", to: "ft") { category } }', { v: k }, key),
    ],
    ['an unknown field', (k: string) => t.graphql(`{ ${k.replace(/[^\w]/g, '_')} }`)],
  ])('%s', async (_, send) => {
    for (const input of [key, LONG]) {
      const res = await send(input);
      expect(res.body.errors?.length).toBeGreaterThan(0);
      const text = JSON.stringify(res.body);
      expect(text).not.toContain(secret);
      expect(text).not.toContain(LONG.slice(0, 40));
    }
  });
});
