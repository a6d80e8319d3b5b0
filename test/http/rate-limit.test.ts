import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errors';
import { createRateLimiters, rateLimitHeaders, type RateLimiters, type RateLimitKind } from '../../src/http/limits/rate-limit';
import { errorHeaders } from '../../src/http/answer/error-headers';

const opened: RateLimiters[] = [];
const create = async (options: Parameters<typeof createRateLimiters>[0]) => {
  const limiters = await createRateLimiters(options);
  opened.push(limiters);
  return limiters;
};
afterEach(async () => {
  for (const l of opened.splice(0)) await l.close();
});

/** Sends `count` requests at once; returns the successes and the errors. */
async function burst(limiters: RateLimiters[], kind: RateLimitKind, bucket: string, count: number) {
  const results = await Promise.allSettled(Array.from({ length: count }, (_, i) => limiters[i % limiters.length]!.consume(kind, bucket)));
  const allowed = results.filter((r) => r.status === 'fulfilled');
  const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  return { allowed, refused };
}

function expectRateLimitErrors(errors: unknown[], policy: string) {
  for (const error of errors) {
    expect(error).toBeInstanceOf(ApiError);
    const { code, status } = error as ApiError;
    const headers = errorHeaders(error as ApiError);
    expect({ code, status }).toEqual({ code: 'RATE_LIMIT_EXCEEDED', status: 429 });
    expect(headers['RateLimit-Policy']).toBe(policy);
    const retryAfter = Number(headers['Retry-After']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(headers['RateLimit']).toBe(`${policy.split(';')[0]};r=0;t=${retryAfter}`);
  }
}

describe('in memory', () => {
  it('lets exactly the limit through when twice the limit arrives at once', async () => {
    const limiters = await create({ publicPerMinute: 10, keyPerSecond: 5 });
    const pub = await burst([limiters], 'public', '203.0.113.7', 20);
    expect([pub.allowed.length, pub.refused.length]).toEqual([10, 10]);
    expectRateLimitErrors(pub.refused, '"per-ip";q=10;w=60');
    const key = await burst([limiters], 'key', 'key_1', 10);
    expect([key.allowed.length, key.refused.length]).toEqual([5, 5]);
    expectRateLimitErrors(key.refused, '"per-key";q=5;w=1');
  });

  it('counts each bucket and each kind on its own', async () => {
    const limiters = await create({ publicPerMinute: 1, keyPerSecond: 1 });
    await limiters.consume('public', '203.0.113.7');
    await expect(limiters.consume('public', '203.0.113.7')).rejects.toMatchObject({ code: 'RATE_LIMIT_EXCEEDED' });
    await expect(limiters.consume('public', '203.0.113.8')).resolves.toMatchObject({ remaining: 0 });
    await expect(limiters.consume('key', '203.0.113.7')).resolves.toMatchObject({ remaining: 0 });
  });

  it('describes the window in the IETF RateLimit fields of successful responses', async () => {
    const limiters = await create({ publicPerMinute: 60, keyPerSecond: 50 });
    const first = await limiters.consume('public', '2001:db8::/64');
    expect(rateLimitHeaders(first)).toEqual({ 'RateLimit-Policy': '"per-ip";q=60;w=60', RateLimit: '"per-ip";r=59;t=60' });
    const second = await limiters.consume('key', 'key_1');
    expect(rateLimitHeaders(second)).toEqual({ 'RateLimit-Policy': '"per-key";q=50;w=1', RateLimit: '"per-key";r=49;t=1' });
  });

  it('says in the message what the limit is and when to retry', async () => {
    const limiters = await create({ publicPerMinute: 1, keyPerSecond: 1 });
    await limiters.consume('key', 'key_1');
    await expect(limiters.consume('key', 'key_1')).rejects.toThrow('Too many requests: at most 1 a second per API key. Retry in 1 second.');
  });

  it('opens a new window once the old one has passed', async () => {
    const limiters = await create({ publicPerMinute: 1, keyPerSecond: 2 });
    await burst([limiters], 'key', 'key_1', 3);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await expect(limiters.consume('key', 'key_1')).resolves.toMatchObject({ remaining: 1 });
  });
});

describe('Redis at start-up', () => {
  it('starts counting in memory when REDIS_URL does not answer, and says so once', async () => {
    const downs: Error[] = [];
    const limiters = await createRateLimiters({
      publicPerMinute: 1,
      keyPerSecond: 1,
      redisUrl: 'redis://127.0.0.1:1',
      connectTimeoutMs: 300,
      onRedisDown: (e) => downs.push(e),
    });
    try {
      expect(limiters.countedIn()).toBe('memory');
      expect(limiters.redisConfigured).toBe(true);
      await expect(limiters.consume('public', '192.0.2.9')).resolves.toMatchObject({ remaining: 0 });
      await expect(limiters.consume('public', '192.0.2.9')).rejects.toMatchObject({ code: 'RATE_LIMIT_EXCEEDED' });
      // Several reconnect attempts have failed by now; the outage is still reported once.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(downs).toHaveLength(1);
    } finally {
      await limiters.close();
    }
  });
});

const redisUrl = process.env.TEST_REDIS_URL;
describe.skipIf(!redisUrl)(redisUrl ? 'in Redis' : 'in Redis (skipped: set TEST_REDIS_URL, e.g. redis://127.0.0.1:6379, to run)', () => {
  // A prefix of our own per run, so parallel runs and earlier runs never share a counter.
  const keyPrefix = `msr-test:${randomUUID()}`;
  afterAll(async () => {
    const client = createClient({ url: redisUrl });
    await client.connect();
    for await (const keys of client.scanIterator({ MATCH: `${keyPrefix}:*`, COUNT: 100 })) if (keys.length) await client.del(keys);
    await client.close();
  });

  it('lets exactly the limit through when twice the limit arrives at once', async () => {
    const limiters = await create({ publicPerMinute: 10, keyPerSecond: 5, redisUrl, keyPrefix });
    const pub = await burst([limiters], 'public', '203.0.113.7', 20);
    expect([pub.allowed.length, pub.refused.length]).toEqual([10, 10]);
    expectRateLimitErrors(pub.refused, '"per-ip";q=10;w=60');
  });

  it('shares one counter between two instances (two servers on one REDIS_URL)', async () => {
    const a = await create({ publicPerMinute: 10, keyPerSecond: 50, redisUrl, keyPrefix });
    const b = await create({ publicPerMinute: 10, keyPerSecond: 50, redisUrl, keyPrefix });
    const pub = await burst([a, b], 'public', '198.51.100.1', 20);
    expect([pub.allowed.length, pub.refused.length]).toEqual([10, 10]);
    const key = await burst([a, b], 'key', 'key_shared', 100);
    expect(key.allowed).toHaveLength(50);
    expectRateLimitErrors(key.refused, '"per-key";q=50;w=1');
  });

  it('keeps its counters under the key prefix with the window as their lifetime', async () => {
    const limiters = await create({ publicPerMinute: 10, keyPerSecond: 5, redisUrl, keyPrefix });
    await limiters.consume('public', '192.0.2.1');
    const client = createClient({ url: redisUrl });
    await client.connect();
    const ttl = await client.pTTL(`${keyPrefix}:public:192.0.2.1`);
    await client.close();
    expect(ttl).toBeGreaterThan(55_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });
});
