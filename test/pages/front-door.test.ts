import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/http/routes';
import { createTestApp, type TestApp } from '../helpers/app';
import { listen } from '../helpers/http-server';

let t: TestApp;
let served: Awaited<ReturnType<typeof listen>>;
const get = (path: string, headers: Record<string, string> = {}, method = 'GET') => fetch(`${served.base}${path}`, { method, headers });
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

beforeAll(async () => {
  // PUBLIC_RATE_LIMIT 2: the front door spends none of it, however often it is asked.
  t = await createTestApp({ PUBLIC_RATE_LIMIT: '2' });
  served = await listen(t);
});
afterAll(async () => {
  await served?.close();
  await t?.close();
});

function expectSecurityHeaders(response: Response) {
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  expect(response.headers.get('x-frame-options')).toBe('DENY');
  expect(response.headers.get('referrer-policy')).toBe('no-referrer');
  expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
}

describe('GET / for a browser', () => {
  it('is a short HTML page linking to GraphiQL, the reference, the account page and the OpenAPI document, under the page CSP', async () => {
    const response = await get('/', { accept: BROWSER_ACCEPT });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('vary')).toBe('Accept, Accept-Encoding');
    expectSecurityHeaders(response);
    const policy = response.headers.get('content-security-policy')!;
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toContain('unsafe-inline');
    const page = await response.text();
    for (const href of ['/graphql', '/docs', '/account', '/openapi.json']) expect(page).toContain(`href="${href}"`);
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(page).not.toMatch(/\sstyle=/);
  });

  it('loads its stylesheet from a hashed, immutable, compressed asset', async () => {
    const page = await (await get('/', { accept: BROWSER_ACCEPT })).text();
    const href = /<link rel="stylesheet" href="([^"]+)"/.exec(page)![1]!;
    expect(href).toMatch(/^\/docs\/assets\/front\.[0-9a-f]{16}\.css$/);
    const css = await get(href, { 'accept-encoding': 'gzip' });
    expect(css.status).toBe(200);
    expect(css.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(css.headers.get('content-encoding')).toBe('gzip');
    expectSecurityHeaders(css);
  });

  it('answers 304 to its own ETag, and HEAD without a body', async () => {
    const first = await get('/', { accept: BROWSER_ACCEPT });
    const etag = first.headers.get('etag')!;
    const again = await get('/', { accept: BROWSER_ACCEPT, 'if-none-match': etag });
    expect(again.status).toBe(304);
    const head = await get('/', { accept: BROWSER_ACCEPT }, 'HEAD');
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });
});

describe('GET / for an API client', () => {
  it.each([[{}], [{ accept: 'application/json' }], [{ accept: '*/*' }]])(
    'is the JSON index with %j: where everything is and every REST route of the table',
    async (headers) => {
      const response = await get('/', headers);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(response.headers.get('vary')).toBe('Accept, Accept-Encoding');
      expectSecurityHeaders(response);
      const { data } = (await response.json()) as {
        data: { name: string; links: Record<string, string>; routes: { method: string; path: string; access: string }[] };
      };
      expect(data.name).toBe('Measurement API');
      expect(data.links).toMatchObject({
        graphql: '/graphql',
        graphiql: '/graphql',
        reference: '/docs',
        openapi: '/openapi.json',
        account: '/account',
      });
      expect(data.routes.map((r) => `${r.method} ${r.path} ${r.access}`)).toEqual(ROUTES.map((r) => `${r.method} ${r.path} ${r.access}`));
    },
  );

  it('HTML and JSON have different ETags, so a cache keyed by Accept never mixes them', async () => {
    const json = await get('/');
    const page = await get('/', { accept: BROWSER_ACCEPT });
    expect(json.headers.get('etag')).not.toBe(page.headers.get('etag'));
  });
});

describe('GET /docs', () => {
  it('is a page that loads Redoc and its boot script from same-origin hashed files, under a CSP without inline scripts or eval', async () => {
    const response = await get('/docs', { accept: BROWSER_ACCEPT });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expectSecurityHeaders(response);
    const policy = response.headers.get('content-security-policy')!;
    expect(policy).toContain("script-src 'self';");
    expect(policy).toContain("connect-src 'self'");
    expect(policy).not.toMatch(/unsafe-eval|script-src[^;]*unsafe-inline|https?:/);
    const page = await response.text();
    const scripts = [...page.matchAll(/<script src="([^"]+)"><\/script>/g)].map((m) => m[1]!);
    expect(scripts).toEqual([
      expect.stringMatching(/^\/docs\/assets\/redoc\.standalone\.[0-9a-f]{16}\.js$/),
      expect.stringMatching(/^\/docs\/assets\/reference\.[0-9a-f]{16}\.js$/),
    ]);
    const redoc = await get(scripts[0]!, { 'accept-encoding': 'br' });
    expect(redoc.status).toBe(200);
    expect(redoc.headers.get('content-encoding')).toBe('br');
    const boot = await (await get(scripts[1]!)).text();
    expect(boot).toContain('Redoc.init("/openapi.json"');
  });

  it('an unknown asset is a JSON 404 and another method a 405 with Allow, in the contract shape', async () => {
    const missing = await get('/docs/assets/nothing.js');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    const post = await fetch(`${served.base}/docs`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(((await post.json()) as { error: { code: string } }).error.code).toBe('METHOD_NOT_ALLOWED');
    expectSecurityHeaders(post);
  });

  it('takes no query parameters', async () => {
    const response = await get('/docs?x=1');
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('INVALID_REQUEST');
  });
});

it('spends none of the public rate limit (2 a minute here): the front door is the same bytes for everyone', async () => {
  for (let i = 0; i < 5; i++) expect((await get('/')).status).toBe(200);
  for (let i = 0; i < 3; i++) expect((await get('/docs')).status).toBe(200);
  expect((await get('/v1/categories')).status).toBe(200);
});
