import { describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';

/**
 * The status of `GET /v1/health` through the front, from the loopback socket with these headers.
 * A client at another address is reached through a proxy on loopback that TRUST_PROXY names: it
 * appends the client's address to X-Forwarded-For.
 */
const health = async (t: TestApp, headers: Record<string, string> = {}) => (await t.fetch('/v1/health', { headers })).status;
const LOOPBACK_PROXY = '127.0.0.1';

describe('per-IP rate limit of public routes', () => {
  it('lets exactly the limit through when twice the limit arrive at once', async () => {
    const t = await createTestApp({ PUBLIC_RATE_LIMIT: '10' });
    const answers = await Promise.all(Array.from({ length: 20 }, () => t.call('GET', '/v1/categories')));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('ratelimit-policy')).toBe('"per-ip";q=10;w=60');
    expect(answers.find((a) => a.status === 200)!.headers.get('ratelimit')).toMatch(/^"per-ip";r=\d+;t=\d+$/);
    await t.close();
  });

  it('counts REST and GraphQL in one counter', async () => {
    const t = await createTestApp({ PUBLIC_RATE_LIMIT: '3' });
    expect((await t.call('GET', '/v1/units/meter')).status).toBe(200);
    expect((await t.graphql('{ unit(id: "m") { id } }')).body.data.unit.id).toBe('meter');
    expect((await t.call('GET', '/v1/units/meter')).status).toBe(200);
    expect((await t.call('GET', '/v1/units/meter')).status).toBe(429);
    const { body } = await t.graphql('{ unit(id: "m") { id } }');
    expect(body.errors[0].extensions).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', status: 429 });
    await t.close();
  });

  it('is checked before validation: an invalid request past the limit is 429', async () => {
    const t = await createTestApp({ PUBLIC_RATE_LIMIT: '1' });
    expect((await t.call('GET', '/v1/units?category=length')).status).toBe(200);
    expect((await t.call('GET', '/v1/units?category=nonsense')).status).toBe(429);
    await t.close();
  });

  it('ignores a spoofed X-Forwarded-For unless TRUST_PROXY says so', async () => {
    const spoofing = await createTestApp({ PUBLIC_RATE_LIMIT: '2' });
    const statuses = [];
    for (let i = 0; i < 4; i++) {
      statuses.push(await health(spoofing, { 'x-forwarded-for': `203.0.113.${i}` }));
    }
    expect(statuses).toEqual([200, 200, 429, 429]);
    await spoofing.close();

    // Two trusted proxies: the one on loopback, and 198.51.100.7 before it.
    const proxied = await createTestApp({ PUBLIC_RATE_LIMIT: '2', TRUST_PROXY: `${LOOPBACK_PROXY},198.51.100.0/24` });
    for (let i = 0; i < 4; i++) {
      expect(await health(proxied, { 'x-forwarded-for': `203.0.113.${i}, 198.51.100.7` })).toBe(200);
    }
    await proxied.close();
  });

  it('buckets IPv6 clients by their /64', async () => {
    const t = await createTestApp({ PUBLIC_RATE_LIMIT: '2', TRUST_PROXY: LOOPBACK_PROXY });
    const statuses = [];
    for (const address of ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:ffff::3', '2001:db8:1:3::1']) {
      statuses.push(await health(t, { 'x-forwarded-for': address }));
    }
    expect(statuses).toEqual([200, 200, 429, 200]);
    await t.close();
  });
});

describe('per-key rate limit of keyed routes', () => {
  it('lets exactly the limit through per key, other keys unaffected', async () => {
    const t = await createTestApp({ KEY_RATE_LIMIT: '5' });
    const [key, other] = [await t.createKey('business'), await t.createKey('business')];
    const answers = await Promise.all(Array.from({ length: 10 }, () => t.call('GET', '/v1/convert?value=1&from=m&to=ft', { key })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(5);
    expect(answers.find((a) => a.status === 429)!.headers.get('ratelimit-policy')).toBe('"per-key";q=5;w=1');
    expect((await t.call('GET', '/v1/convert?value=1&from=m&to=ft', { key: other })).status).toBe(200);
    await t.close();
  });

  it('spends nothing of the quota on rate-limited requests', async () => {
    const t = await createTestApp({ KEY_RATE_LIMIT: '2' });
    const { key, account } = await t.createAccountKey('free');
    await Promise.all(Array.from({ length: 6 }, () => t.call('GET', '/v1/convert?value=1&from=m&to=ft', { key })));
    expect(await t.store.monthlyUsage(account.id, new Date().toISOString().slice(0, 7))).toBe(2);
    await t.close();
  });
});

describe('a caller with a key on public routes and fields', () => {
  it("spends its key's limit, never its IP's: REST and GraphQL past the per-IP limit, while a keyless caller is refused", async () => {
    const t = await createTestApp({ PUBLIC_RATE_LIMIT: '2', KEY_RATE_LIMIT: '1000' });
    try {
      const key = await t.createKey();
      for (let i = 0; i < 5; i += 1) {
        const rest = await t.call('GET', '/v1/units/meter', { key });
        expect(rest.status).toBe(200);
        expect(rest.headers.get('ratelimit-policy')).toBe('"per-key";q=1000;w=1');
        const graphql = await t.postGraphQL('{ unit(id: "m") { id } categories { id } }', { key });
        expect(graphql.body.data.unit.id).toBe('meter');
        expect(graphql.body.extensions.rateLimit.policy).toBe('per-key');
      }
      // The IP's limit is untouched by all of that: a keyless caller from the same address has its 2.
      expect((await t.call('GET', '/v1/units/meter')).status).toBe(200);
      expect((await t.call('GET', '/v1/units/meter')).status).toBe(200);
      expect((await t.call('GET', '/v1/units/meter')).status).toBe(429);
    } finally {
      await t.close();
    }
  });

  it("spends the IP's limit when its key does not authenticate, and is answered as without one", async () => {
    const t = await createTestApp({ PUBLIC_RATE_LIMIT: '2' });
    try {
      const forged = `${(await t.createKey()).slice(0, -10)}AAAAAAAAAA`;
      expect((await t.call('GET', '/v1/units/meter', { key: forged })).status).toBe(200);
      const second = await t.call('GET', '/v1/units/meter', { key: forged });
      expect(second.headers.get('ratelimit')).toMatch(/^"per-ip";r=0;/);
      expect((await t.call('GET', '/v1/units/meter', { key: forged })).status).toBe(429);
    } finally {
      await t.close();
    }
  });
});
