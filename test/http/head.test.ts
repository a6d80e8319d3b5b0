import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/http/routes';
import { createTestApp, type TestApp } from '../helpers/app';
import { listen } from '../helpers/http-server';
import { MADE_UP_PUBLICATIONS, tableRates } from '../helpers/table-rates';

/** HEAD (RFC 9110 9.3.2): the GET's status and headers, no body, the same checks and limits. */
let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp(
    { PUBLIC_RATE_LIMIT: '1000', KEY_RATE_LIMIT: '1000' },
    { rates: tableRates(MADE_UP_PUBLICATIONS), clock: () => new Date('2024-04-03T12:00:00Z') },
  );
  key = await t.createKey('developer');
});
afterAll(() => t.close());

const EXAMPLES: Record<string, string> = {
  '/v1/categories/:category': '/v1/categories/length',
  '/v1/units/:unit': '/v1/units/ft',
  '/v1/currencies/:code': '/v1/currencies/usd',
  '/v1/convert': '/v1/convert?value=1&from=mile&to=km',
  '/v1/currency/rates': '/v1/currency/rates?symbols=USD',
  '/v1/currency/rates/series': '/v1/currency/rates/series?start=2024-03-01&end=2024-03-31&group=week',
  '/v1/currency/rates/series.csv': '/v1/currency/rates/series.csv?start=2024-03-01&end=2024-03-31',
  '/v1/currency/rates/series.ndjson': '/v1/currency/rates/series.ndjson?start=2024-03-01&end=2024-03-31',
};
const IGNORED = new Set(['x-request-id', 'date', 'etag-of-nothing', 'x-quota-remaining', 'ratelimit']);

describe('HEAD on every GET route', () => {
  // A signed link's route is opened by a link, without the key: test/http/series-links.test.ts.
  it.each(ROUTES.filter((r) => r.method === 'GET' && !r.signedLink).map((r) => [r.path, EXAMPLES[r.path] ?? r.path]))(
    '%s answers 200 with the headers of GET and no body',
    async (_, url) => {
      const options = { key, headers: {} };
      const get = await t.call('GET', url, options);
      const head = await t.call('HEAD', url, options);
      expect(get.status).toBe(200);
      expect(head.status).toBe(200);
      expect(head.body).toBeUndefined();
      const headersOf = (h: Headers) => [...h].filter(([name]) => !IGNORED.has(name));
      expect(headersOf(head.headers)).toEqual(headersOf(get.headers));
    },
  );

  it('checks like GET: a bad input is the same error status, still without a body', async () => {
    const res = await t.call('HEAD', '/v1/units/furlongs');
    expect(res.status).toBe(404);
    expect(res.body).toBeUndefined();
    expect((await t.call('HEAD', '/v1/convert?value=1&from=mile&to=km')).status).toBe(401);
  });

  it.each(ROUTES.filter((r) => r.etag).map((r) => [r.path, EXAMPLES[r.path] ?? r.path]))(
    '%s: a strong ETag, and 304 with it and the caching fields, no body, on If-None-Match',
    async (_, url) => {
      const get = await t.call('GET', url);
      const etag = get.headers.get('etag')!;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      for (const [method, candidate] of [
        ['GET', etag],
        ['HEAD', `W/${etag}`],
        ['GET', `"nope", ${etag}`],
        ['GET', '*'],
      ] as const) {
        const res = await t.call(method, url, { headers: { 'if-none-match': candidate } });
        expect([res.status, res.body, res.headers.get('etag'), res.headers.get('cache-control'), res.headers.get('content-type')]).toEqual([
          304,
          undefined,
          etag,
          get.headers.get('cache-control'),
          null,
        ]);
      }
      expect((await t.call('GET', url, { headers: { 'if-none-match': '"nope"' } })).status).toBe(200);
    },
  );

  it('answers 304 to If-None-Match on the shared latest rates', async () => {
    const etag = (await t.call('GET', '/v1/currency/rates/latest')).headers.get('etag')!;
    expect((await t.call('HEAD', '/v1/currency/rates/latest', { headers: { 'if-none-match': etag } })).status).toBe(304);
  });

  it('sends the GET Content-Length and no body bytes over node:http', async () => {
    const server = await listen(t);
    try {
      const get = await fetch(`${server.base}/v1/units/ft`);
      const head = await fetch(`${server.base}/v1/units/ft`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
      expect(await head.text()).toBe('');
    } finally {
      await server.close();
    }
  });
});

describe('HEAD is rate-limited like GET', () => {
  it('spends the same per-IP limit and is refused past it', async () => {
    const limited = await createTestApp({ PUBLIC_RATE_LIMIT: '2' });
    try {
      const statuses = [];
      for (const method of ['HEAD', 'GET', 'HEAD']) statuses.push((await limited.call(method, '/v1/categories')).status);
      expect(statuses).toEqual([200, 200, 429]);
      const refused = await limited.call('HEAD', '/v1/categories');
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      await limited.close();
    }
  });
});
