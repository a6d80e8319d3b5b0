import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentMonth } from '../../src/domain/quota';
import { createTestApp, type TestApp } from '../helpers/app';
import { rawRequest } from '../helpers/http';
import { MADE_UP_PUBLICATIONS, tableRates } from '../helpers/table-rates';

/**
 * Contract section 11: a GraphQL answer carries in `extensions` what the document cost, the key's
 * quota and the rate limit it spent from, the figures of the X-Quota-* and RateLimit headers. Over
 * loopback HTTP through the front's executor, under both JSON media types (the executor's answers
 * are held to Yoga's own, live, by graphql-executor-parity.test.ts).
 */
const NOW = new Date('2024-04-03T12:00:00Z');
const THREE = `{
  a: convert(value: "1", from: "in", to: "cm") { result { value } }
  b: convert(value: "1", from: "in", to: "kg") { result { value } }
  c: convertCurrency(value: "10", from: "EUR", to: "USD") { result { value } }
}`;

describe.each([['the executor', {}]] as const)('GraphQL cost extensions through %s', (_, env) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(env, { rates: tableRates(MADE_UP_PUBLICATIONS), clock: () => NOW });
  });
  afterAll(() => t.close());

  const post = async (query: string, options: { key?: string; accept?: string; variables?: Record<string, unknown> } = {}) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (options.key) headers['authorization'] = `Bearer ${options.key}`;
    if (options.accept) headers['accept'] = options.accept;
    const answer = await rawRequest(t.origin, 'POST', '/graphql', headers, JSON.stringify({ query, variables: options.variables }));
    return { status: answer.status, headers: answer.headers, body: JSON.parse(answer.text) };
  };

  describe.each(['application/json', 'application/graphql-response+json'])('answering %s', (accept) => {
    it('reports 3 conversions requested and 2 charged for a document with one failing, and the quota 2 lower', async () => {
      const key = await t.createKey('free');
      const { status, headers, body } = await post(THREE, { key, accept });
      expect(status).toBe(200);
      expect(body.data.b).toBeNull();
      expect(body.errors.map((e: any) => e.extensions.code)).toEqual(['INCOMPATIBLE_UNITS']);
      expect(body.extensions).toEqual({
        cost: { requestedConversions: 3, chargedConversions: 2, requests: 3 },
        quota: { limit: 1000, remaining: 998, resetsAt: '2024-05-01T00:00:00.000Z' },
        rateLimit: { policy: 'per-key', limit: 50, windowSeconds: 1, remaining: expect.any(Number), resetSeconds: 1 },
      });
      // The headers of the same answer tell the same.
      expect(headers.get('x-quota-remaining')).toBe('998');
      expect(headers.get('ratelimit')).toBe(`"per-key";r=${body.extensions.rateLimit.remaining};t=1`);
    });

    it('reports a public query at no quota cost and one request of the client IP’s limit, with no quota', async () => {
      const { status, headers, body } = await post('{ unit(id: "ft") { id } }', { accept });
      expect(status).toBe(200);
      expect(body).toEqual({
        data: { unit: { id: 'foot' } },
        extensions: {
          cost: { requestedConversions: 0, chargedConversions: 0, requests: 1 },
          rateLimit: { policy: 'per-ip', limit: 60, windowSeconds: 60, remaining: expect.any(Number), resetSeconds: expect.any(Number) },
          languages: [{ used: 'en', source: 'default', asked: null, exact: true }],
        },
      });
      expect(headers.get('ratelimit')).toBe(
        `"per-ip";r=${body.extensions.rateLimit.remaining};t=${body.extensions.rateLimit.resetSeconds}`,
      );
      expect(headers.get('x-quota-remaining')).toBeNull();
    });

    it('reports a quota used up: nothing charged, nothing remaining', async () => {
      const { key, account } = await t.createAccountKey('free');
      await t.store.consumeQuota(account.id, currentMonth(NOW), Number.MAX_SAFE_INTEGER, 1000);
      const { body } = await post(THREE, { key, accept });
      expect(body.errors.map((e: any) => [e.path[0], e.extensions.code]).sort()).toEqual([
        ['a', 'QUOTA_EXCEEDED'],
        ['b', 'QUOTA_EXCEEDED'],
        ['c', 'QUOTA_EXCEEDED'],
      ]);
      expect(body.extensions.cost).toEqual({ requestedConversions: 3, chargedConversions: 0, requests: 3 });
      expect(body.extensions.quota).toEqual({ limit: 1000, remaining: 0, resetsAt: '2024-05-01T00:00:00.000Z' });
    });

    it('counts batch items, and charges only the items that converted', async () => {
      const key = await t.createKey('free');
      const items = '[{value: "1", from: "m", to: "ft"}, {value: "1", from: "m", to: "kg"}, {value: "2", from: "m", to: "ft"}]';
      const { body } = await post(`{ batch(items: ${items}) { succeeded } one: convert(value: "1", from: "m", to: "ft") { category } }`, {
        key,
        accept,
      });
      expect(body.data.batch.succeeded).toBe(2);
      expect(body.extensions.cost).toEqual({ requestedConversions: 4, chargedConversions: 3, requests: 2 });
      expect(body.extensions.quota.remaining).toBe(997);
    });

    it('reports the quota of a keyed field that costs nothing, as the headers read it', async () => {
      const key = await t.createKey('developer');
      const { headers, body } = await post('{ rates(symbols: "USD") { date } }', { key, accept });
      expect(body.extensions.cost).toEqual({ requestedConversions: 0, chargedConversions: 0, requests: 1 });
      expect(body.extensions.quota).toEqual({ limit: 100000, remaining: 100000, resetsAt: '2024-05-01T00:00:00.000Z' });
      expect(headers.get('x-quota-remaining')).toBe('100000');
    });

    it('reports what a refused document asked for, and that nothing was charged', async () => {
      const key = await t.createKey('business');
      const items = Array.from({ length: 600 }, () => ({ value: '1', from: 'm', to: 'ft' }));
      const query = 'query($items: [BatchItemInput!]!) { a: batch(items: $items) { succeeded } b: batch(items: $items) { succeeded } }';
      const { body } = await post(query, { key, accept, variables: { items } });
      expect(body.errors[0].extensions.code).toBe('INVALID_REQUEST');
      expect(body.extensions.cost).toEqual({ requestedConversions: 1200, chargedConversions: 0, requests: 2 });
    });
  });
});
