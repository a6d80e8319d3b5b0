import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { keyEnvFor } from '../../src/domain/keys';
import { createTestApp, type TestApp } from '../helpers/app';
import { MADE_UP_PUBLICATIONS, tableRates } from '../helpers/table-rates';

const START = new Date('2024-04-03T12:00:00.000Z');
const HOUR = 3_600_000;
const CONVERT = '/v1/convert?value=1&from=mile&to=km';
const INVALID = 'Bearer realm="measurement-api", error="invalid_token"';

let now = START;
let t: TestApp;
/** A second instance on the same database (its own key cache), as a second server would be. */
let other: TestApp;

beforeAll(async () => {
  const rates = tableRates(MADE_UP_PUBLICATIONS);
  t = await createTestApp({}, { rates, clock: () => now });
  other = await createTestApp({ DATA_DIR: t.config.dataDir }, { rates, clock: () => now });
});
afterAll(async () => {
  await other.close();
  await t.close();
});
beforeEach(() => {
  now = START;
});

const later = (ms: number) => new Date(START.getTime() + ms);

describe('a key created with an expiry', () => {
  it('is answered with Key-Expires (an HTTP-date) until then, and 401 KEY_EXPIRED saying when after it, REST and GraphQL alike', async () => {
    const account = await t.store.createAccount({ plan: 'free' });
    const end = later(5000).toISOString();
    const { key } = await t.store.createKey(account.id, keyEnvFor(t.config.apiEnv), end);

    const working = await t.call('GET', CONVERT, { key });
    expect(working.status).toBe(200);
    expect(working.headers.get('key-expires')).toBe('Wed, 03 Apr 2024 12:00:05 GMT');
    const graphql = await t.graphql('{ convert(value: "1", from: "mile", to: "km") { result { value } } }', {}, key);
    expect(graphql.body.extensions.key).toEqual({ expiresAt: end });

    now = later(5000);
    const expired = await t.call('GET', CONVERT, { key });
    expect(expired.status).toBe(401);
    expect(expired.body.error).toMatchObject({
      code: 'KEY_EXPIRED',
      status: 401,
      message: `The API key expired at ${end}; use a current key, or ask for a new one.`,
    });
    expect(expired.headers.get('www-authenticate')).toBe(INVALID);
    const refused = await t.graphql('{ convert(value: "1", from: "mile", to: "km") { result { value } } }', {}, key);
    expect(refused.body.errors[0]).toMatchObject({
      extensions: { code: 'KEY_EXPIRED', status: 401 },
      message: expect.stringContaining(`expired at ${end}`),
    });
    expect(refused.body.data?.convert ?? null).toBeNull();
  });

  it('a key without an end gets no Key-Expires, nor an extensions.key', async () => {
    const key = await t.createKey('free');
    expect((await t.call('GET', CONVERT, { key })).headers.has('key-expires')).toBe(false);
    expect(
      (await t.graphql('{ convert(value: "1", from: "mile", to: "km") { result { value } } }', {}, key)).body.extensions,
    ).not.toHaveProperty('key');
  });
});

describe('a key rotated with a grace', () => {
  it('answers beside its successor on both instances until the grace ends, with Key-Expires an hour ahead, then 401 KEY_EXPIRED', async () => {
    const { key: oldKey, keyId } = await t.createAccountKey('developer');
    // Both instances have found the old key active (their caches hold it) before the rotation.
    expect((await t.call('GET', CONVERT, { key: oldKey })).status).toBe(200);
    expect((await other.call('GET', CONVERT, { key: oldKey })).status).toBe(200);

    const rotated = await t.store.rotateKey(keyId, later(HOUR).toISOString());
    const newKey = rotated.key;
    for (const instance of [t, other]) {
      const old = await instance.call('GET', CONVERT, { key: oldKey });
      expect(old.status).toBe(200);
      expect(old.headers.get('key-expires')).toBe('Wed, 03 Apr 2024 13:00:00 GMT');
      const current = await instance.call('GET', CONVERT, { key: newKey });
      expect(current.status).toBe(200);
      expect(current.headers.has('key-expires')).toBe(false);
    }
    // A browser page may read it where CORS is sent.
    const shared = await t.call('GET', '/v1/currency/rates/latest', { key: oldKey, headers: { origin: 'https://example.org' } });
    expect(shared.headers.get('access-control-expose-headers')?.split(', ')).toContain('Key-Expires');

    now = later(HOUR - 1);
    expect((await other.call('GET', CONVERT, { key: oldKey })).status).toBe(200);
    now = later(HOUR);
    for (const instance of [t, other]) {
      const old = await instance.call('GET', CONVERT, { key: oldKey });
      expect(old.status).toBe(401);
      expect(old.body.error).toMatchObject({
        code: 'KEY_EXPIRED',
        message: expect.stringContaining('grace ended at 2024-04-03T13:00:00.000Z'),
      });
      expect((await instance.call('GET', CONVERT, { key: newKey })).status).toBe(200);
    }
  });

  it('with no grace, the old key is refused at once on both instances, as a revoked key', async () => {
    const { key: oldKey, keyId } = await t.createAccountKey('developer');
    expect((await other.call('GET', CONVERT, { key: oldKey })).status).toBe(200);
    await t.store.rotateKey(keyId);
    for (const instance of [t, other]) {
      const old = await instance.call('GET', CONVERT, { key: oldKey });
      expect(old.status).toBe(401);
      expect(old.body.error.code).toBe('UNAUTHORIZED');
    }
  });
});

describe('GET /v1/usage and GraphQL usage', () => {
  it('after 7 delivered conversions and 1 failed, today counts 7 delivered; reading it uses no quota', async () => {
    const { key } = await t.createAccountKey('free');
    for (let i = 0; i < 7; i++) expect((await t.call('GET', CONVERT, { key })).status).toBe(200);
    expect((await t.call('GET', '/v1/convert?value=1&from=mile&to=gram', { key })).status).toBe(400);

    const res = await t.call('GET', '/v1/usage', { key });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-quota-remaining')).toBe('993');
    expect(res.body.data.quota).toEqual({ limit: 1000, used: 7, remaining: 993, reset: '2024-05-01T00:00:00.000Z' });
    expect(res.body.data.days).toHaveLength(31);
    expect(res.body.data.days[0]).toEqual({ day: '2024-03-04', delivered: 0, refusedQuota: 0, refusedRate: 0 });
    expect(res.body.data.days[30]).toEqual({ day: '2024-04-03', delivered: 7, refusedQuota: 0, refusedRate: 0 });

    const graphql = await t.graphql('{ usage { quota { used remaining } days { day delivered } } }', {}, key);
    expect(graphql.body.data.usage.quota).toEqual({ used: 7, remaining: 993 });
    expect(graphql.body.data.usage.days.at(-1)).toEqual({ day: '2024-04-03', delivered: 7 });
    expect(graphql.body.extensions.cost).toEqual({ requestedConversions: 0, chargedConversions: 0, requests: 1 });
  });

  it('counts conversions refused for the quota on the day, and needs a key', async () => {
    const { key, account } = await t.createAccountKey('free');
    await t.store.consumeQuota(account.id, '2024-04', 1000, 999);
    // A batch with items past the quota is one refused request; so is a conversion refused outright.
    await t.call('POST', '/v1/batch', { key, body: { items: [0, 1, 2].map(() => ({ value: '1', from: 'mile', to: 'km' })) } });
    expect((await t.call('GET', CONVERT, { key })).status).toBe(429);
    await vi.waitFor(async () => {
      const today = (await t.call('GET', '/v1/usage', { key })).body.data.days.at(-1);
      expect(today).toEqual({ day: '2024-04-03', delivered: 1, refusedQuota: 2, refusedRate: 0 });
    });
    const anonymous = await t.call('GET', '/v1/usage');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('UNAUTHORIZED');
  });
});

describe('requests refused by the rate limit', () => {
  it('count on the account’s day, REST and GraphQL alike', async () => {
    const limited = await createTestApp({ KEY_RATE_LIMIT: '2' }, { rates: tableRates(MADE_UP_PUBLICATIONS), clock: () => now });
    try {
      const { key, account } = await limited.createAccountKey('free');
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await limited.call('GET', CONVERT, { key })).status);
      const graphql = await limited.graphql('{ convert(value: "1", from: "mile", to: "km") { result { value } } }', {}, key);
      const refused =
        statuses.filter((s) => s === 429).length + (graphql.body.errors?.[0]?.extensions.code === 'RATE_LIMIT_EXCEEDED' ? 1 : 0);
      // The window is one second: on a slow machine a request may fall in the next one.
      expect(refused).toBeGreaterThanOrEqual(1);
      await vi.waitFor(async () => {
        const [day] = await limited.store.dailyUsage(account.id, '2024-04-03', '2024-04-03');
        expect(day?.refusedRate).toBe(refused);
      });
    } finally {
      await limited.close();
    }
  });
});
