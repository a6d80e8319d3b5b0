import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { css, js } from '@graphql-yoga/render-graphiql/graphiql';
import { loadConfig } from '../../../src/config';
import { createTestApp, type TestApp } from '../../helpers/app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const get = (path: string, headers: Record<string, string> = {}, method = 'GET') => t.fetch(path, { method, headers });
const html = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const assetPaths = (page: string) => [...page.matchAll(/(?:src|href)="(\/graphql\/assets\/[^"]+)"/g)].map((m) => m[1]!);

describe('GraphiQL page at GET /graphql', () => {
  it('is a small page that names its script, style and icon by hashed asset URLs, with no inline script', async () => {
    const res = await get('/graphql', html);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const page = await res.text();
    expect(page.length).toBeLessThan(2000);
    expect(assetPaths(page)).toEqual([
      expect.stringMatching(/^\/graphql\/assets\/favicon\.[0-9a-f]{16}\.svg$/),
      expect.stringMatching(/^\/graphql\/assets\/graphiql\.[0-9a-f]{16}\.css$/),
      expect.stringMatching(/^\/graphql\/assets\/boot\.[0-9a-f]{16}\.js$/),
      expect.stringMatching(/^\/graphql\/assets\/graphiql\.[0-9a-f]{16}\.js$/),
    ]);
    expect(page).not.toMatch(/<script>|<script(?![^>]*\bsrc=)[^>]*>|<style|\son\w+=/i);
    expect(page).not.toMatch(/https?:\/\//);
  });

  it('is revalidated: no-cache with a strong ETag, 304 on If-None-Match; HEAD answers the same headers', async () => {
    const res = await get('/graphql', html);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('vary')).toBe('Accept, Accept-Encoding');
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await get('/graphql', { ...html, 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const head = await get('/graphql', html, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe(etag);
    expect(await head.text()).toBe('');
  });

  it('carries its own CSP (inline styles for Monaco, no inline scripts), kept by the security headers plugin', async () => {
    const res = await get('/graphql', html);
    const policy = res.headers.get('content-security-policy')!;
    expect(policy).toContain("script-src 'self';");
    expect(policy).toContain("style-src 'self' 'unsafe-inline';");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });

  it('leaves GraphQL over GET to Yoga for clients that do not ask for HTML', async () => {
    const res = await get('/graphql?query=%7B__typename%7D', { accept: 'application/json' });
    expect(await res.json()).toEqual({ data: { __typename: 'Query' }, extensions: expect.anything() });
  });
});

describe('GraphiQL assets under /graphql/assets/', () => {
  it('are immutable for a year, with a strong ETag per encoding, brotli or gzip as accepted, and Vary: Accept-Encoding', async () => {
    const page = await (await get('/graphql', html)).text();
    const script = assetPaths(page).find((p) => p.endsWith('.js') && p.includes('/graphiql.'))!;
    const br = await get(script, { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(br.headers.get('vary')).toBe('Accept-Encoding');
    expect(br.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(br.headers.get('x-content-type-options')).toBe('nosniff');
    expect(br.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
    expect(brotliDecompressSync(Buffer.from(await br.arrayBuffer())).toString()).toBe(js);
    const gz = await get(script, { 'accept-encoding': 'gzip, br;q=0' });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(gunzipSync(Buffer.from(await gz.arrayBuffer())).toString()).toBe(js);
    const plain = await get(script, { 'accept-encoding': 'identity' });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toBe(js);
    expect(new Set([br, gz, plain].map((r) => r.headers.get('etag'))).size).toBe(3);
    const notModified = await get(script, { 'accept-encoding': 'br', 'if-none-match': br.headers.get('etag')! });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const head = await get(script, { 'accept-encoding': 'br' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(br.headers.get('content-length'));
    expect(await head.text()).toBe('');
  });

  it("serve the bundle's stylesheet with its base64 fonts and images as files of their own", async () => {
    const page = await (await get('/graphql', html)).text();
    const stylesheet = await (await get(assetPaths(page).find((p) => p.endsWith('.css'))!, { 'accept-encoding': 'identity' })).text();
    expect(stylesheet).not.toContain('data:');
    const files = [...stylesheet.matchAll(/url\((\/graphql\/assets\/[^)]+)\)/g)].map((m) => m[1]!);
    expect(files.length).toBe((css.match(/url\(data:/g) ?? []).length);
    const font = files.find((f) => f.endsWith('.woff2'))!;
    const res = await get(font, { 'accept-encoding': 'br' });
    expect(res.headers.get('content-type')).toBe('font/woff2');
    expect(res.headers.get('content-encoding')).toBeNull();
    expect(
      Buffer.from(await res.arrayBuffer())
        .subarray(0, 4)
        .toString(),
    ).toBe('wOF2');
  });

  it('weigh under 2 MB on the wire for everything the page names, with brotli and with gzip', async () => {
    const page = await (await get('/graphql', html)).text();
    for (const encoding of ['br', 'gzip']) {
      let bytes = Buffer.byteLength(page);
      for (const path of assetPaths(page)) bytes += (await (await get(path, { 'accept-encoding': encoding })).arrayBuffer()).byteLength;
      expect(bytes, encoding).toBeLessThan(2_000_000);
    }
  });

  it('answer 404 with the contract body for an unknown asset, 405 with Allow for other methods', async () => {
    const res = await get('/graphql/assets/graphiql.0000000000000000.js');
    expect(res.status).toBe(404);
    expect((await res.json()).error).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    const page = await (await get('/graphql', html)).text();
    const post = await t.fetch(assetPaths(page)[0]!, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect((await post.json()).error.code).toBe('METHOD_NOT_ALLOWED');
  });
});

describe('GraphiQL and the per-IP limit of public routes', () => {
  it('spends nothing: its page and assets answer past PUBLIC_RATE_LIMIT, without RateLimit, and the IP keeps its requests', async () => {
    const limited = await createTestApp({ PUBLIC_RATE_LIMIT: '3' });
    try {
      const fetchOf = (path: string, headers: Record<string, string> = {}) => limited.fetch(path, { headers });
      for (let load = 0; load < 5; load += 1) {
        const page = await fetchOf('/graphql', html);
        expect(page.status).toBe(200);
        expect(page.headers.get('ratelimit')).toBeNull();
        for (const asset of assetPaths(await page.text())) expect((await fetchOf(asset)).status).toBe(200);
      }
      const after = await limited.call('GET', '/v1/categories');
      expect(after.status).toBe(200);
      expect(after.headers.get('ratelimit')).toMatch(/^"per-ip";r=2;/);
    } finally {
      await limited.close();
    }
  });
});

describe('GRAPHIQL=off', () => {
  it('is on by default, and any value but on or off stops start-up naming the variable', () => {
    expect(loadConfig({}).graphiql).toBe(true);
    expect(loadConfig({ GRAPHIQL: 'off' }).graphiql).toBe(false);
    expect(() => loadConfig({ GRAPHIQL: 'yes' })).toThrow(/^Invalid configuration: GRAPHIQL /);
  });

  it('answers 404 with the contract body for the page and its assets; GraphQL over GET still works', async () => {
    const on = await (await get('/graphql', html)).text();
    const off = await createTestApp({ GRAPHIQL: 'off' });
    try {
      const page = await off.fetch('/graphql', { headers: html });
      expect(page.status).toBe(404);
      expect((await page.json()).error).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('GRAPHIQL=off') });
      const asset = await off.fetch(assetPaths(on)[0]!);
      expect(asset.status).toBe(404);
      const query = await off.fetch('/graphql?query=%7B__typename%7D', { headers: html });
      expect(await query.json()).toEqual({ data: { __typename: 'Query' }, extensions: expect.anything() });
    } finally {
      await off.close();
    }
  });
});
