import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  key = await t.createKey();
});
afterAll(() => t.close());

const convertBody = { value: '1', from: 'inch', to: 'centimeter' };

describe('the REST edge answers every failure with the contract error body', () => {
  it.each([
    ['GET', '/v1/nothing'],
    ['GET', '/index.html'],
    ['GET', '/v2/units'],
    ['POST', '/v1/webhook'],
    ['GET', '/v1/openapi.json'],
    ['GET', '/v1/docs'],
    ['GET', '/v1/convert-post'],
    ['GET', '/v1/units/meter/extra'],
  ])('404 NOT_FOUND for an unknown route: %s %s', async (method, url) => {
    const res = await t.call(method, url, method === 'POST' ? { body: {} } : {});
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect(res.body.error.requestId).toBe(res.headers.get('x-request-id'));
  });

  it.each([
    ['GET', '/v1/currencies/', '/v1/currencies'],
    ['GET', '/v1/units/ft/', '/v1/units/ft'],
    ['GET', '/v1/health//', '/v1/health'],
    ['POST', '/v1/convert/', '/v1/convert'],
    ['GET', '/openapi.json/', '/openapi.json'],
  ])('404 for %s %s with a trailing slash, naming the route without it', async (method, url, route) => {
    const res = await t.call(method, url, method === 'POST' ? { key, body: convertBody } : {});
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({
      code: 'NOT_FOUND',
      message: `There is no route '${url}': routes are written without a trailing slash; use '${route}'.`,
    });
  });

  it.each([
    ['DELETE', '/v1/units', 'GET, HEAD, OPTIONS'],
    ['POST', '/v1/categories', 'GET, HEAD, OPTIONS'],
    ['PUT', '/v1/convert', 'GET, POST, HEAD'],
    ['GET', '/v1/batch', 'POST'],
    ['HEAD', '/v1/batch', 'POST'],
    ['POST', '/openapi.json', 'GET, HEAD, OPTIONS'],
    ['DELETE', '/v1/currency/rates/latest', 'GET, HEAD, OPTIONS'],
  ])('405 METHOD_NOT_ALLOWED with Allow for %s %s', async (method, url, allow) => {
    const res = await t.call(method, url);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe(allow);
    if (method !== 'HEAD') expect(res.body.error.code).toBe('METHOD_NOT_ALLOWED');
  });

  it('415 for a POST body that is not application/json', async () => {
    const res = await t.call('POST', '/v1/convert', {
      key,
      rawBody: 'value=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('accepts application/json with a charset parameter', async () => {
    const res = await t.call('POST', '/v1/convert', {
      key,
      rawBody: JSON.stringify(convertBody),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(res.status).toBe(200);
  });

  it('413 for a body over 64 KiB, and over 1 MiB on /v1/batch', async () => {
    const big = JSON.stringify({ ...convertBody, value: '1'.repeat(70 * 1024) });
    expect((await t.call('POST', '/v1/convert', { key, rawBody: big, headers: { 'content-type': 'application/json' } })).status).toBe(413);
    const items = Array.from({ length: 1000 }, () => ({ ...convertBody, from: 'x'.repeat(1100) }));
    const res = await t.call('POST', '/v1/batch', { key, body: { items } });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it.each([
    ['malformed JSON', '{"value": "1",'],
    ['an empty body', ''],
    ['a JSON array', '[]'],
    ['a JSON string', '"1"'],
    ['null', 'null'],
  ])('400 INVALID_REQUEST for %s', async (_, rawBody) => {
    const res = await t.call('POST', '/v1/convert', { key, rawBody, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_REQUEST');
  });

  it('refuses query parameters on POST routes (SOFA would let them override the body)', async () => {
    const res = await t.call('POST', '/v1/convert?to=foot', { key, body: convertBody });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'INVALID_REQUEST', param: 'to' });
  });

  it.each([
    ['an unknown body field', { ...convertBody, extra: 1 }, 'extra'],
    ['a __proto__ key', JSON.parse('{"value":"1","from":"inch","to":"foot","__proto__":{"x":1}}'), '__proto__'],
    ['a JSON number as value', { ...convertBody, value: 12.5 }, 'value'],
    // eslint-disable-next-line no-loss-of-precision -- the precision a JSON number loses is the point
    ['a huge JSON number as value', { ...convertBody, value: 12345678901234567890.123 }, 'value'],
    ['decimals as a string', { ...convertBody, decimals: '2' }, 'decimals'],
    ['decimals as true', { ...convertBody, decimals: true }, 'decimals'],
    ['decimals as 2.5', { ...convertBody, decimals: 2.5 }, 'decimals'],
    ['decimals out of range', { ...convertBody, decimals: 41 }, 'decimals'],
    ['an unknown rounding mode', { ...convertBody, decimals: 2, rounding: 'SIDEWAYS' }, 'rounding'],
    ['from as a number', { ...convertBody, from: 5 }, 'from'],
    ['a missing to', { value: '1', from: 'inch' }, 'to'],
  ])('400 INVALID_REQUEST naming the field for %s', async (_, body, param) => {
    const res = await t.call('POST', '/v1/convert', { key, body });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'INVALID_REQUEST', param });
  });

  it('says to send a string when value is a JSON number', async () => {
    const res = await t.call('POST', '/v1/convert', { key, body: { ...convertBody, value: 1 } });
    expect(res.body.error.message).toMatch(/string/);
  });

  it.each([
    ['/v1/convert?value=1&from=inch&to=foot&colour=red', 'colour'],
    ['/v1/convert?value=1&value=2&from=inch&to=foot', 'value'],
    ['/v1/convert?value=1&from=inch&to=foot&decimals=two', 'decimals'],
    ['/v1/convert?value=1e5&from=inch&to=foot', 'value'],
    ['/v1/convert?value=&from=inch&to=foot', 'value'],
    ['/v1/convert?from=inch&to=foot', 'value'],
    ['/v1/convert?value=1&from=inch&to=foot&key=abc', 'key'],
    ['/v1/units?category=length&category=mass', 'category'],
    ['/v1/categories?x=1', 'x'],
  ])('400 INVALID_REQUEST for the query %s', async (url, param) => {
    const res = await t.call('GET', url, { key });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'INVALID_REQUEST', param });
  });

  it('answers for the inputs it checked: a second `?` in the query string does not cut a value short', async () => {
    const res = await t.call('GET', '/v1/convert?value=1&from=inch&to=foot?decimals=99', { key });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'UNKNOWN_UNIT', param: 'to' });
    expect((await t.call('GET', '/v1/units?category=length?x')).body.error).toMatchObject({ code: 'INVALID_REQUEST', param: 'category' });
  });

  it.each([
    ['/v1/units?category=', 'category'],
    ['/v1/convert?value=1&from=&to=foot', 'from'],
    ['/v1/convert?value=1&from=inch&to=foot&decimals=', 'decimals'],
    ['/v1/currency/rates?symbols=', 'symbols'],
  ])('refuses an empty query-string value instead of reading it as absent: %s', async (url, param) => {
    const res = await t.call('GET', url, { key });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'INVALID_REQUEST', param });
  });

  it.each([
    ['/v1/units/%', "Unit '%' does not exist. See GET /v1/units.", 'unit'],
    ['/v1/units/%E0%A4%A', "Unit '%E0%A4%A' does not exist. See GET /v1/units.", 'unit'],
    ['/v1/categories/%ZZ', "Category '%ZZ' does not exist. See GET /v1/categories.", 'category'],
  ])('takes a malformed percent-escape in a path segment as the name itself: %s is 404', async (url, message, param) => {
    const res = await t.call('GET', url);
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'NOT_FOUND', param, message });
  });

  // rawRequest sends `#` as `%23` (a request target has no fragment), so `#` is a character of the
  // path here: the unit `#`, a query string after it, and the OpenAPI check reads the path that was sent.
  it.each([
    ['/v1/units/#?a=1', 400, 'INVALID_REQUEST', "Unknown query parameter 'a'."],
    ['/v1/categories/#?__proto__=1', 400, 'INVALID_REQUEST', "Unknown query parameter '__proto__'."],
    ['/v1/units/meter#x', 404, 'NOT_FOUND', "Unit 'meter#x' does not exist (did you mean meter?). See GET /v1/units."],
    ['/v1/categories#?a=1', 404, 'NOT_FOUND', "There is no route '/v1/categories%23'. See GET /openapi.json."],
  ])('a `#` sent as %%23 is part of the path: GET %s', async (url, status, code, message) => {
    const res = await t.call('GET', url, { key });
    expect(res.status).toBe(status);
    expect(res.body.error).toMatchObject({ code, message });
  });

  it('checks the key before the inputs (authentication comes before validation)', async () => {
    const res = await t.call('GET', '/v1/convert?value=oops');
    expect(res.status).toBe(401);
  });

  it('checks the body before the key (body parsing comes before authentication)', async () => {
    const res = await t.call('POST', '/v1/convert', { rawBody: '{', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
  });
});

describe('unexpected failures', () => {
  it('answer 500 INTERNAL with a requestId and no stack trace', async () => {
    const broken = await createTestApp();
    const failing = Object.create(broken.store) as typeof broken.store;
    failing.findActiveKeyByHash = async () => {
      throw new Error('disk on fire at /secret/path.ts:12');
    };
    const app = await createTestApp({}, { store: failing });
    const validKey = await broken.createKey();
    const res = await app.call('GET', '/v1/convert?value=1&from=inch&to=foot', { key: validKey });
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('INTERNAL');
    expect(res.body.error.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.stringify(res.body)).not.toMatch(/fire|secret|\.ts/);
    await app.close();
    await broken.close();
  });
});

describe('POST /v1/batch envelope', () => {
  it.each([
    ['an object instead of an array', { items: { value: '1', from: 'm', to: 'ft' } }],
    ['no items', { items: [] }],
    ['1001 items', { items: Array.from({ length: 1001 }, () => ({ value: '1', from: 'm', to: 'ft' })) }],
    ['a missing items member', {}],
    ['an item with a number value', { items: [{ value: 1, from: 'm', to: 'ft' }] }],
  ])('fails the whole request with 400 INVALID_REQUEST for %s', async (_, body) => {
    const res = await t.call('POST', '/v1/batch', { key, body });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_REQUEST');
  });
});
