import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  key = await t.createKey();
});
afterAll(() => t.close());

describe('GET and POST /v1/convert', () => {
  it('convert exactly, naming canonical units, and keep the input as sent', async () => {
    const res = await t.call('GET', '/v1/convert?value=12.50&from=in&to=cm', { key });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      data: { input: { value: '12.50', unit: 'inch' }, result: { value: '31.75', unit: 'centimeter' }, category: 'length' },
    });
  });

  it('give the same answer through POST', async () => {
    const get = await t.call('GET', '/v1/convert?value=-40&from=celsius&to=fahrenheit', { key });
    const post = await t.call('POST', '/v1/convert', { key, body: { value: '-40', from: 'celsius', to: 'fahrenheit' } });
    expect(post.status).toBe(200);
    expect(post.body).toEqual(get.body);
    expect(post.body.data.result.value).toBe('-40');
  });

  it('round once with decimals and the rounding mode', async () => {
    const url = '/v1/convert?value=1&from=foot&to=meter&decimals=2';
    expect((await t.call('GET', url, { key })).body.data.result.value).toBe('0.30');
    expect((await t.call('GET', `${url}&rounding=CEILING`, { key })).body.data.result.value).toBe('0.31');
    const post = await t.call('POST', '/v1/convert', {
      key,
      body: { value: '2', from: 'inch', to: 'foot', decimals: 3, rounding: 'DOWN' },
    });
    expect(post.body.data.result.value).toBe('0.166');
  });

  it('print 40 significant digits when the exact result does not terminate', async () => {
    const res = await t.call('GET', '/v1/convert?value=1&from=inch&to=yard', { key });
    expect(res.body.data.result.value).toBe('0.02777777777777777777777777777777777777778');
  });

  it.each([
    ['from=furlong&to=meter', 'UNKNOWN_UNIT', 'from'],
    ['from=meter&to=furlong', 'UNKNOWN_UNIT', 'to'],
    ['from=meter&to=kilogram', 'INCOMPATIBLE_UNITS', 'to'],
    ['from=USD&to=meter', 'INCOMPATIBLE_UNITS', 'from'],
  ])('answer 400 for %s with %s', async (pair, code, param) => {
    const res = await t.call('GET', `/v1/convert?value=1&${pair}`, { key });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code, param, status: 400 });
  });

  it('refuse temperatures below absolute zero and 0 in a reciprocal unit', async () => {
    const cold = await t.call('GET', '/v1/convert?value=-273.16&from=celsius&to=kelvin', { key });
    expect(cold.body.error).toMatchObject({ code: 'INVALID_REQUEST', param: 'value' });
    const zero = await t.call('GET', `/v1/convert?value=0&from=${encodeURIComponent('L/100 km')}&to=mpg_us`, { key });
    expect(zero.status).toBe(400);
  });
});

describe('the keys of /v1/convert', () => {
  it.each([
    ['no header', undefined, 'Bearer realm="measurement-api"'],
    ['a malformed key', 'Bearer msr_test_short', 'Bearer realm="measurement-api", error="invalid_token"'],
    ['another scheme', 'Basic dXNlcjpwYXNz', 'Bearer realm="measurement-api", error="invalid_token"'],
  ])('answer 401 UNAUTHORIZED with the challenge for %s', async (_, authorization, challenge) => {
    const res = await t.call('GET', '/v1/convert?value=1&from=inch&to=foot', authorization ? { headers: { authorization } } : {});
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(challenge);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
  });

  it('accept the scheme in any case', async () => {
    const res = await t.call('GET', '/v1/convert?value=1&from=inch&to=foot', { headers: { authorization: `bEaReR ${key}` } });
    expect(res.status).toBe(200);
  });

  it('refuse a key of the other environment', async () => {
    const live = await createTestApp({ API_ENV: 'production' });
    const liveKey = await live.createKey();
    expect((await t.call('GET', '/v1/convert?value=1&from=inch&to=foot', { key: liveKey })).status).toBe(401);
    expect((await live.call('GET', '/v1/convert?value=1&from=inch&to=foot', { key })).status).toBe(401);
    expect((await live.call('GET', '/v1/convert?value=1&from=inch&to=foot', { key: liveKey })).status).toBe(200);
    await live.close();
  });

  it('name the prefix this server wants and the one sent, never the key, through REST and GraphQL', async () => {
    const live = await createTestApp({ API_ENV: 'production' });
    const liveKey = await live.createKey();
    const message =
      'The API key is not valid for this environment: this server accepts only msr_test_ keys (API_ENV=development); the key sent is a msr_live_ key.';
    const rest = await t.call('GET', '/v1/convert?value=1&from=inch&to=foot', { key: liveKey });
    expect(rest.body.error.message).toBe(message);
    const graphql = await t.graphql('{ convert(value: "1", from: "inch", to: "foot") { result { value } } }', {}, liveKey);
    expect(graphql.body.errors[0]).toMatchObject({ message, extensions: { code: 'UNAUTHORIZED' } });
    expect(JSON.stringify([rest.body, graphql.body])).not.toContain(liveKey.slice(9));
    await live.close();
  });

  it('refuse a revoked key at once', async () => {
    const account = await t.store.createAccount({ plan: 'free' });
    const created = await t.store.createKey(account.id, 'test');
    expect((await t.call('GET', '/v1/convert?value=1&from=inch&to=foot', { key: created.key })).status).toBe(200);
    await t.store.revokeKey(created.record.id);
    expect((await t.call('GET', '/v1/convert?value=1&from=inch&to=foot', { key: created.key })).status).toBe(401);
  });

  it('never accept a key in the query string', async () => {
    const res = await t.call('GET', `/v1/convert?value=1&from=inch&to=foot&api_key=${key}`);
    expect(res.status).toBe(401);
  });
});

describe('POST /v1/batch item errors', () => {
  it.each([
    ['the direct execution', {}],
    ['SOFA', { REST_EXECUTION: 'sofa' }],
  ])('leave param out when no one input is at fault, as top-level errors do (%s)', async (_, env) => {
    const app = await createTestApp(env);
    try {
      // This app holds no rates: a currency item fails with SERVICE_UNAVAILABLE, which no one input caused.
      const items = [
        { value: '1', from: 'usd', to: 'gbp' },
        { value: '1x', from: 'meter', to: 'foot' },
      ];
      const res = await app.call('POST', '/v1/batch', { key: await app.createKey(), body: { items } });
      expect(res.status).toBe(200);
      const [unavailable, invalid] = res.body.data.results.map((r: { error: object }) => r.error);
      expect(unavailable).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      expect(unavailable).not.toHaveProperty('param');
      expect(invalid).toMatchObject({ code: 'INVALID_REQUEST', param: 'value' });
    } finally {
      await app.close();
    }
  });
});
