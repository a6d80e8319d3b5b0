import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, type RestRoute } from '../../src/http/routes';
import { csp, HTML_CSP } from '../../src/http/front/security-headers';
import { createTestApp, type TestApp } from '../helpers/app';
import { MADE_UP_PUBLICATIONS, tableRates } from '../helpers/table-rates';

let t: TestApp;
let base: string;
let key: string;
beforeAll(async () => {
  t = await createTestApp({}, { rates: tableRates(MADE_UP_PUBLICATIONS), clock: () => new Date('2024-04-03T12:00:00Z') });
  key = await t.createKey('developer');
  base = t.origin;
});
afterAll(() => t.close());

const SAMPLE_PARAMS: Record<string, string> = { id: 'length', category: 'length', code: 'usd' };
const SAMPLE_BODIES: Record<string, unknown> = {
  '/v1/convert': { value: '1', from: 'inch', to: 'cm' },
  '/v1/batch': { items: [{ value: '1', from: 'inch', to: 'cm' }] },
  '/v1/currency/convert': { value: '1', from: 'EUR', to: 'USD' },
  '/v1/currency/rates/series/links': { start: '2024-03-01', end: '2024-04-02' },
};

const SAMPLE_QUERIES: Record<string, string> = {
  '/v1/currency/rates/series': '?start=2024-03-01&end=2024-04-02',
  '/v1/currency/rates/series.csv': '?start=2024-03-01&end=2024-04-02',
  '/v1/currency/rates/series.ndjson': '?start=2024-03-01&end=2024-04-02',
};

function requestOf(route: RestRoute): { url: string; init: RequestInit } {
  const path = route.path.replace(/:([a-z]+)/g, (_, name: string) => (route.path.startsWith('/v1/units') ? 'ft' : SAMPLE_PARAMS[name]!));
  const query = route.path === '/v1/convert' && route.method === 'GET' ? '?value=1&from=inch&to=cm' : (SAMPLE_QUERIES[route.path] ?? '');
  const headers: Record<string, string> = route.access === 'key' && !route.signedLink ? { authorization: `Bearer ${key}` } : {};
  const body = route.method === 'POST' ? JSON.stringify(SAMPLE_BODIES[route.path]) : undefined;
  if (body) headers['content-type'] = 'application/json';
  return { url: `${base}${path}${query}`, init: { method: route.method, headers, ...(body ? { body } : {}) } };
}

function expectSecurityHeaders(res: Response, kind: 'api' | 'html' = 'api'): void {
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  const policy = res.headers.get('content-security-policy') ?? '';
  if (kind === 'api') expect(policy).toBe("frame-ancestors 'none'");
  else {
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toMatch(/(^|; )script-src 'self'(;|$)/);
    expect(policy).not.toMatch(/script-src[^;]*unsafe/);
  }
}

describe('security headers on every response (contract section 10), over HTTP', () => {
  it.each(ROUTES.map((route) => [route.method, route.path, route] as const))('%s %s', async (_, __, route) => {
    const { url, init } = requestOf(route);
    const res = await fetch(url, init);
    // A signed link's route without a link: refused, with the same headers.
    expect(res.status).toBe(route.signedLink ? 403 : 200);
    expectSecurityHeaders(res);
  });

  it.each([
    [
      'POST /graphql',
      '/graphql',
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ health { status } }"}' },
      200,
    ],
    ['GET /graphql (JSON)', '/graphql?query=%7B__typename%7D', { headers: { accept: 'application/json' } }, 200],
    ['a GraphQL error', '/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ nope }"}' }, 200],
    ['an unknown path (404)', '/nowhere', {}, 404],
    ['a 405', '/v1/units', { method: 'DELETE' }, 405],
    ['a 405 on /graphql', '/graphql', { method: 'PUT' }, 405],
    [
      'a 413',
      '/v1/convert',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ value: '1'.repeat(70_000), from: 'm', to: 'ft' }),
      },
      413,
    ],
    ['a 415', '/graphql', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' }, 415],
    ['a 401', '/v1/convert?value=1&from=m&to=ft', {}, 401],
    [
      'a preflight',
      '/v1/currency/rates/latest',
      { method: 'OPTIONS', headers: { origin: 'https://example.com', 'access-control-request-method': 'GET' } },
      204,
    ],
  ] as const)('%s', async (_, path, init, status) => {
    const res = await fetch(`${base}${path}`, init as RequestInit);
    expect(res.status).toBe(status);
    expectSecurityHeaders(res);
  });

  it('a 304 Not Modified', async () => {
    const first = await fetch(`${base}/v1/currency/rates/latest`);
    const res = await fetch(`${base}/v1/currency/rates/latest`, { headers: { 'if-none-match': first.headers.get('etag')! } });
    expect(res.status).toBe(304);
    expectSecurityHeaders(res);
  });

  it('HTML pages get the full policy, without inline scripts, and cannot be framed', async () => {
    const res = await fetch(`${base}/graphql`, { headers: { accept: 'text/html' } });
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expectSecurityHeaders(res, 'html');
  });

  it('writes the page policy from its directives', () => {
    expect(csp(HTML_CSP)).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; font-src 'self'; connect-src 'self'; worker-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    );
  });
});
