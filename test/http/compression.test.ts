import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Publication } from '../../src/domain/ecb';
import { createTestApp, type TestApp } from '../helpers/app';
import { tableRates } from '../helpers/table-rates';

/** Made-up publications in the ECB's form (not real ECB data): every weekday of January to March 2024, four currencies. */
const PUBLICATIONS: Publication[] = [];
for (let day = new Date('2024-01-02T00:00:00Z'); day < new Date('2024-04-01T00:00:00Z'); day = new Date(day.getTime() + 86_400_000)) {
  if (day.getUTCDay() === 0 || day.getUTCDay() === 6) continue;
  const n = PUBLICATIONS.length;
  PUBLICATIONS.push({
    date: day.toISOString().slice(0, 10),
    rates: { USD: `1.0${800 + n}`, JPY: `16${n % 10}.5${n % 7}`, GBP: `0.85${n % 9}0`, CHF: `0.9${n % 5}21` },
  });
}

const SERIES = '/v1/currency/rates/series?start=2024-01-01&end=2024-03-31&symbols=USD,JPY,GBP,CHF';
const UNITS_QUERY = '{ units { id name symbol aliases } }';
const GRAPHQL_GET = `/graphql?query=${encodeURIComponent(UNITS_QUERY)}`;
const CODINGS = ['gzip', 'br'] as const;

function decode(coding: string | null, bytes: Buffer): string {
  if (coding === 'gzip') return gunzipSync(bytes).toString('utf8');
  if (coding === 'br') return brotliDecompressSync(bytes).toString('utf8');
  return bytes.toString('utf8');
}

function withoutCounters(text: string): unknown {
  const json = JSON.parse(text) as { extensions?: { rateLimit?: unknown } };
  delete json.extensions?.rateLimit;
  return json;
}

function expectSecurityHeaders(headers: Headers): void {
  expect(headers.get('x-content-type-options')).toBe('nosniff');
  expect(headers.get('x-frame-options')).toBe('DENY');
  expect(headers.get('referrer-policy')).toBe('no-referrer');
  expect(headers.get('content-security-policy')).toBeTruthy();
  expect(headers.get('x-request-id')).toBeTruthy();
}

describe('compression by Accept-Encoding', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    // 2024-04-04 14:00 Berlin: a range up to March is complete, so the series answer has its ETag.
    t = await createTestApp(
      { KEY_RATE_LIMIT: '100000', PUBLIC_RATE_LIMIT: '100000' },
      { rates: tableRates(PUBLICATIONS), clock: () => new Date('2024-04-04T12:00:00Z') },
    );
    key = await t.createKey('developer');
  });
  afterAll(() => t.close());

  const auth = () => ({ authorization: `Bearer ${key}` });
  /** The exact bytes on the wire (the loopback client decodes nothing). */
  const raw = async (target: string, headers: Record<string, string> = {}, method = 'GET', body?: string) => {
    const res = await t.fetch(target, { method, headers, ...(body === undefined ? {} : { body }) });
    return { res, bytes: Buffer.from(await res.arrayBuffer()) };
  };
  const graphqlPost = (acceptEncoding?: string) =>
    raw(
      '/graphql',
      { 'content-type': 'application/json', ...(acceptEncoding ? { 'accept-encoding': acceptEncoding } : {}) },
      'POST',
      JSON.stringify({ query: UNITS_QUERY }),
    );

  describe.each([
    ['/openapi.json', () => raw('/openapi.json'), (coding: string) => raw('/openapi.json', { 'accept-encoding': coding })],
    ['a series in JSON', () => raw(SERIES, auth()), (coding: string) => raw(SERIES, { ...auth(), 'accept-encoding': coding })],
    ['a GraphQL answer (POST)', () => graphqlPost(), (coding: string) => graphqlPost(coding)],
  ])('%s', (_name, identity, coded) => {
    it.each(CODINGS)('in %s decodes to the identity bytes, with its own length, Vary and the security headers', async (coding) => {
      const plain = await identity();
      expect(plain.res.status).toBe(200);
      expect(plain.res.headers.get('content-encoding')).toBeNull();
      expect(plain.bytes.length).toBeGreaterThan(1024);
      const encoded = await coded(coding);
      expect(encoded.res.status).toBe(200);
      expect(encoded.res.headers.get('content-encoding')).toBe(coding);
      expect(encoded.res.headers.get('vary')).toMatch(/(^|, )Accept-Encoding$/);
      expect(Number(encoded.res.headers.get('content-length'))).toBe(encoded.bytes.length);
      expect(encoded.bytes.length).toBeLessThan(plain.bytes.length / 2);
      // GraphQL's extensions count the rate limit down: the rest is the same.
      expect(withoutCounters(decode(coding, encoded.bytes))).toEqual(withoutCounters(plain.bytes.toString('utf8')));
      expectSecurityHeaders(encoded.res.headers);
    });
  });

  it('is decoded by a real HTTP client (fetch) to the same text as the identity answer', async () => {
    const plain = (await raw('/openapi.json', { 'accept-encoding': 'identity' })).bytes.toString('utf8');
    for (const coding of CODINGS) {
      const res = await fetch(`${t.origin}/openapi.json`, { headers: { 'accept-encoding': coding } });
      expect(res.headers.get('content-encoding')).toBe(coding);
      expect(await res.text()).toBe(plain);
    }
  });

  it('leaves a small answer as it is, still varying on Accept-Encoding', async () => {
    const { res, bytes } = await raw('/v1/convert?value=12.5&from=inch&to=centimeter', { ...auth(), 'accept-encoding': 'gzip, br' });
    expect(res.status).toBe(200);
    expect(bytes.length).toBeLessThan(1024);
    expect(res.headers.get('content-encoding')).toBeNull();
    expect(res.headers.get('vary')).toBe('Accept-Encoding');
    expect(JSON.parse(bytes.toString('utf8')).data.result.value).toBe('31.75');
  });

  it('sends identity when Accept-Encoding is absent or allows neither coding', async () => {
    for (const acceptEncoding of [undefined, '', 'identity', 'deflate', 'gzip;q=0, br;q=0', '*;q=0']) {
      const { res } = await raw('/openapi.json', acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding });
      expect(res.headers.get('content-encoding'), String(acceptEncoding)).toBeNull();
    }
  });

  describe.each([
    ['a pre-built catalogue answer (GET /v1/units)', '/v1/units', () => ({})],
    ['the OpenAPI document', '/openapi.json', () => ({})],
    ['a series', SERIES, auth],
    ['a cacheable GraphQL GET', GRAPHQL_GET, () => ({})],
  ])('validators of %s', (_name, target, headersOf) => {
    it('has a strong ETag per coding, and answers 304 to each with that ETag, Vary and no body', async () => {
      const identity = (await raw(target, headersOf())).res.headers.get('etag')!;
      expect(identity).toMatch(/^"[A-Za-z0-9_-]+"$/);
      for (const coding of CODINGS) {
        const { res } = await raw(target, { ...headersOf(), 'accept-encoding': coding });
        const etag = res.headers.get('etag')!;
        expect(etag).toBe(`${identity.slice(0, -1)}-${coding}"`);
        const again = await raw(target, { ...headersOf(), 'accept-encoding': coding, 'if-none-match': etag });
        expect(again.res.status).toBe(304);
        expect(again.bytes.length).toBe(0);
        expect(again.res.headers.get('etag')).toBe(etag);
        expect(again.res.headers.get('vary')).toMatch(/(^|, )Accept-Encoding$/);
        expect(again.res.headers.get('content-encoding')).toBeNull();
        expectSecurityHeaders(again.res.headers);
      }
      const plain = await raw(target, { ...headersOf(), 'if-none-match': identity });
      expect(plain.res.status).toBe(304);
      expect(plain.res.headers.get('etag')).toBe(identity);
    });

    it('revalidates the identity ETag for a client that now asks for a coding, naming the copy the client holds', async () => {
      const identity = (await raw(target, headersOf())).res.headers.get('etag')!;
      const gzip = `${identity.slice(0, -1)}-gzip"`;
      const held = await raw(target, { ...headersOf(), 'accept-encoding': 'br', 'if-none-match': identity });
      expect([held.res.status, held.res.headers.get('etag')]).toEqual([304, identity]);
      // Both listed: the one of the coding this request would be sent in.
      const both = await raw(target, { ...headersOf(), 'accept-encoding': 'gzip', 'if-none-match': `${identity}, W/${gzip}` });
      expect([both.res.status, both.res.headers.get('etag')]).toEqual([304, gzip]);
      const other = await raw(target, { ...headersOf(), 'accept-encoding': 'gzip', 'if-none-match': '"something-else-gzip"' });
      expect(other.res.status).toBe(200);
    });
  });

  it('answers HEAD with the headers GET would have and no body', async () => {
    for (const coding of CODINGS) {
      const get = await raw('/openapi.json', { 'accept-encoding': coding });
      const head = await raw('/openapi.json', { 'accept-encoding': coding }, 'HEAD');
      expect(head.bytes.length).toBe(0);
      for (const name of ['content-encoding', 'content-length', 'vary', 'content-type'])
        expect(head.res.headers.get(name), name).toBe(get.res.headers.get(name));
      const series = await raw(SERIES, { ...auth(), 'accept-encoding': coding }, 'HEAD');
      expect(series.bytes.length).toBe(0);
      expect(series.res.headers.get('content-encoding')).toBe(coding);
      expect(series.res.headers.get('etag')).toMatch(new RegExp(`-${coding}"$`));
    }
  });

  it.each([
    ["GraphiQL's page (under 1 KiB)", '/graphql', null],
    ['the home page (through Yoga, as every page)', '/', 'br'],
    ['the reference page (under 1 KiB)', '/docs', null],
  ])('sends %s compressed only from 1 KiB, varying on Accept-Encoding, to the same HTML', async (_name, target, coding) => {
    const plain = await raw(target, { accept: 'text/html' });
    expect(plain.res.status).toBe(200);
    expect(plain.bytes.length >= 1024).toBe(coding !== null);
    const page = await raw(target, { accept: 'text/html', 'accept-encoding': 'br' });
    expect(page.res.headers.get('content-encoding')).toBe(coding);
    expect(page.res.headers.get('vary')).toMatch(/(^|, )Accept-Encoding$/);
    expect(decode(coding, page.bytes)).toBe(plain.bytes.toString('utf8'));
    expectSecurityHeaders(page.res.headers);
  });

  it('compresses an MCP answer, which is JSON (never an event stream), and decodes to the tool list', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const headers = {
      ...auth(),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    };
    const plain = await raw('/mcp', headers, 'POST', body);
    expect(plain.res.status).toBe(200);
    expect(plain.bytes.length).toBeGreaterThan(1024);
    const { res, bytes } = await raw('/mcp', { ...headers, 'accept-encoding': 'gzip' }, 'POST', body);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('content-encoding')).toBe('gzip');
    const { result } = JSON.parse(decode('gzip', bytes)) as { result: { tools: { name: string }[] } };
    expect(result.tools.map((tool) => tool.name)).toContain('convert');
    expectSecurityHeaders(res.headers);
  });

  it('never answers 500 to a hostile Accept-Encoding: huge, repeated, malformed', async () => {
    const hostile = [
      'gzip;q=0.5, '.repeat(50_000),
      `${'x'.repeat(200_000)}, br`,
      'gzip;q=abc',
      'br;q=2, gzip;q=-1',
      ';;;,,,;q=1',
      'gzip; q=0.5; level=9',
      'BR;Q=1',
      '*',
      'identity;q=0',
      '\t gzip \t;\tq=1',
      'gzip;q=0.5, gzip;q=0.6, br;q',
    ];
    for (const acceptEncoding of hostile) {
      const { res, bytes } = await raw('/openapi.json', { 'accept-encoding': acceptEncoding });
      expect(res.status, acceptEncoding.slice(0, 40)).toBe(200);
      const document = JSON.parse(decode(res.headers.get('content-encoding'), bytes)) as { openapi: string };
      expect(document.openapi).toBe('3.1.0');
    }
  });
});

describe('COMPRESSION=off', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ COMPRESSION: 'off' });
  });
  afterAll(() => t.close());

  it('sends every answer as it is, without varying on Accept-Encoding', async () => {
    for (const target of ['/openapi.json', '/v1/units']) {
      const res = await t.fetch(target, { headers: { 'accept-encoding': 'gzip, br' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-encoding')).toBeNull();
      expect(res.headers.get('vary') ?? '').not.toMatch(/Accept-Encoding/);
    }
  });
});
