import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApolloClient, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentHash } from '../../src/domain/persisted-query';
import { createTestApp, type TestApp } from '../helpers/app';
import { frontServer, rawRequest } from '../helpers/http';
import { MADE_UP_PUBLICATIONS, tableRates } from '../helpers/table-rates';
import { openPersistedDocuments } from '../../src/data/persisted/open-persisted-documents';
import { PersistedDocuments } from '../../src/services/persisted-documents';
import { loadConfig } from '../../src/config';

const UNIT = '{ unit(id: "ft") { id symbol } }';
const persisted = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });
const CLOCK = () => new Date('2024-04-03T12:00:00Z');

let t: TestApp;
let server: ReturnType<typeof frontServer>;
let origin: string;

beforeAll(async () => {
  t = await createTestApp({ PUBLIC_RATE_LIMIT: '100000' }, { rates: tableRates(MADE_UP_PUBLICATIONS), clock: CLOCK });
  server = frontServer(t.app);
  origin = await server.origin();
});
afterAll(async () => {
  await server.close();
  await t.close();
});

function post(body: unknown, headers: Record<string, string> = {}, to = origin) {
  return rawRequest(to, 'POST', '/graphql', { 'content-type': 'application/json', ...headers }, JSON.stringify(body));
}
function get(params: Record<string, unknown>, headers: Record<string, string> = {}, to = origin) {
  const search = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
  return rawRequest(to, 'GET', `/graphql?${search}`, { accept: 'application/json', ...headers });
}
const json = (answer: { text: string }) => JSON.parse(answer.text) as { data?: any; errors?: any[]; extensions?: any };

describe('Apollo APQ over HTTP', () => {
  it('answers a hash alone with PERSISTED_QUERY_NOT_FOUND until the document is sent with it, then serves the hash alone by POST and GET', async () => {
    const hash = documentHash(UNIT);
    const miss = await post({ extensions: persisted(hash) }, { accept: 'application/graphql-response+json' });
    expect(miss.status).toBe(404);
    expect(json(miss).errors).toEqual([
      { message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND', status: 404 } },
    ]);
    expect(json(miss).data).toBeUndefined();

    const registered = await post({ query: UNIT, extensions: persisted(hash) });
    expect(registered.status).toBe(200);
    expect(json(registered).data).toEqual({ unit: { id: 'foot', symbol: 'ft' } });

    const byPost = await post({ extensions: persisted(hash) });
    expect(json(byPost).data).toEqual({ unit: { id: 'foot', symbol: 'ft' } });
    const byGet = await get({ extensions: persisted(hash) });
    expect(byGet.status).toBe(200);
    expect(json(byGet).data).toEqual({ unit: { id: 'foot', symbol: 'ft' } });
  });

  it('refuses a document whose hash is not its SHA-256 with INVALID_REQUEST, and registers nothing', async () => {
    const hash = documentHash('{ categories { id } }');
    const mismatch = await post(
      { query: '{ units { id } }', extensions: persisted(hash) },
      { accept: 'application/graphql-response+json' },
    );
    expect(mismatch.status).toBe(400);
    expect(json(mismatch).errors![0].extensions).toEqual({ code: 'INVALID_REQUEST', status: 400, param: 'extensions' });
    expect((await post({ extensions: persisted(hash) })).text).toContain('PERSISTED_QUERY_NOT_FOUND');
  });

  it('refuses a malformed extension (another version) with INVALID_REQUEST', async () => {
    const answer = await post({ extensions: { persistedQuery: { version: 2, sha256Hash: documentHash(UNIT) } } });
    expect(json(answer).errors![0].extensions.code).toBe('INVALID_REQUEST');
  });

  it('registers only a document that reaches execution: one over the limits, or invalid, stays unknown', async () => {
    const aliased = `{ ${Array.from({ length: 51 }, (_, i) => `c${i}: convert(value: "1", from: "ft", to: "m") { category }`).join(' ')} }`;
    const tooBig = `{ __typename } # ${'x'.repeat(17 * 1024)}`;
    const invalid = '{ nosuchfield }';
    for (const document of [tooBig, invalid, aliased]) {
      const hash = documentHash(document);
      const first = await post({ query: document, extensions: persisted(hash) });
      expect(json(first).errors?.length ?? 0, first.text.slice(0, 300)).toBeGreaterThan(0);
      expect(json(await post({ extensions: persisted(hash) })).errors![0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    }
  });

  it("a hash's document spends the rate limit and the quota as the document sent would", async () => {
    const key = await t.createKey('free');
    const convert = '{ convert(value: "1", from: "ft", to: "m") { result { value } } }';
    const hash = documentHash(convert);
    const sent = await post({ query: convert, extensions: persisted(hash) }, { authorization: `Bearer ${key}` });
    const byHash = await post({ extensions: persisted(hash) }, { authorization: `Bearer ${key}` });
    expect(json(sent).data).toEqual({ convert: { result: { value: '0.3048' } } });
    expect(json(byHash).data).toEqual(json(sent).data);
    expect(json(byHash).extensions.cost).toEqual({ requestedConversions: 1, chargedConversions: 1, requests: 1 });
    expect(json(byHash).extensions.quota.remaining).toBe(json(sent).extensions.quota.remaining - 1);
  });

  it("works with Apollo Client's own persisted-queries link: a hashed GET, its miss, the registration by POST, then hashed GETs only", async () => {
    const seen: { method: string; status: number; hashOnly: boolean }[] = [];
    const recordingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const url = new URL(String(input));
      const hashOnly =
        init?.method === 'GET' ? !url.searchParams.has('query') : !(JSON.parse(String(init?.body)) as { query?: string }).query;
      seen.push({ method: init?.method ?? 'GET', status: response.status, hashOnly });
      return response;
    };
    const link = new PersistedQueryLink({ sha256: documentHash, useGETForHashedQueries: true }).concat(
      new HttpLink({ uri: `${origin}/graphql`, fetch: recordingFetch }),
    );
    const client = new ApolloClient({ link, cache: new InMemoryCache() });
    const query = gql`query Ounce { unit(id: "oz") { id name } }`;
    const first = await client.query({ query, fetchPolicy: 'network-only' });
    const second = await client.query({ query, fetchPolicy: 'network-only' });
    expect(first.data).toEqual({ unit: { __typename: 'Unit', id: 'ounce', name: expect.any(String) } });
    expect(second.data).toEqual(first.data);
    expect(seen).toEqual([
      { method: 'GET', status: 404, hashOnly: true },
      { method: 'POST', status: 200, hashOnly: false },
      { method: 'GET', status: 200, hashOnly: true },
    ]);
  });
});

describe('cacheable GraphQL GETs', () => {
  it('a public catalogue document: public for an hour, a strong ETag, Vary, and 304 on If-None-Match', async () => {
    const first = await get({ query: '{ categories { id } }' });
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(first.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(first.headers.get('vary')).toBe('Accept, Accept-Language, Authorization, Accept-Encoding');
    // The request's counters stay in the headers; the body is the same for the next request.
    expect(json(first).extensions.rateLimit).toBeUndefined();
    expect(first.headers.get('ratelimit')).toMatch(/^"per-ip";r=\d+;t=\d+$/);
    const again = await get({ query: '{ categories { id } }' }, { 'if-none-match': first.headers.get('etag')! });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(again.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(again.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('the latest rates: public until the next publication', async () => {
    const answer = await get({ query: '{ latestRates { date } }' });
    expect(answer.headers.get('cache-control')).toBe('public, max-age=1800');
  });

  it("a persisted document with a key: private, a past day's rates for a day, ETag, then 304", async () => {
    const key = await t.createKey('developer');
    const document = 'query Past($date: Date) { rates(date: $date, symbols: ["USD"]) { date rates } }';
    const hash = documentHash(document);
    const auth = { authorization: `Bearer ${key}` };
    await post({ query: document, variables: { date: '2024-03-27' }, extensions: persisted(hash) }, auth);
    const first = await get({ variables: { date: '2024-03-27' }, extensions: persisted(hash) }, auth);
    expect(first.status).toBe(200);
    expect(json(first).data.rates.date).toBe('2024-03-27');
    expect(first.headers.get('cache-control')).toBe('private, max-age=86400');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"/);
    const again = await get({ variables: { date: '2024-03-27' }, extensions: persisted(hash) }, { ...auth, 'if-none-match': etag });
    expect(again.status).toBe(304);
    // The newest day can still change: until the next publication.
    const newest = await get({ variables: { date: '2024-04-02' }, extensions: persisted(hash) }, auth);
    expect(newest.headers.get('cache-control')).toBe('private, max-age=1800');
  });

  it('a public document sent with a key is private', async () => {
    const key = await t.createKey('free');
    const answer = await get({ query: '{ units { id } }' }, { authorization: `Bearer ${key}` });
    expect(answer.headers.get('cache-control')).toBe('private, max-age=3600');
  });

  it('conversions, a key account, errors and a miss are never stored', async () => {
    const key = await t.createKey('free');
    const auth = { authorization: `Bearer ${key}` };
    for (const [params, headers] of [
      [{ query: '{ convert(value: "1", from: "ft", to: "m") { result { value } } }' }, auth],
      [{ query: '{ usage { plan } }' }, auth],
      [{ query: '{ unit(id: "nosuchunit") { id } }' }, {}],
      [{ query: '{ categories { id } unit(id: "ft") { id } health { status } }' }, {}],
      [{ extensions: persisted('0'.repeat(64)) }, {}],
    ] as const) {
      const answer = await get(params, headers);
      expect(answer.headers.get('cache-control'), JSON.stringify(params)).toBe('no-store');
      expect(answer.headers.get('etag')).toBeNull();
      expect(answer.status).toBeLessThan(500);
    }
  });

  it('POST answers are left as they are', async () => {
    const answer = await post({ query: '{ categories { id } }' });
    expect(answer.headers.get('etag')).toBeNull();
    expect(json(answer).extensions.rateLimit).toBeDefined();
  });
});

describe('the operator manifest', () => {
  let documents: PersistedDocuments;
  let m: TestApp;
  let mServer: ReturnType<typeof frontServer>;
  const MANIFEST_DOC = 'query ManifestUnits { units(category: "length") { id } }';

  beforeAll(async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'manifest-'));
    const file = path.join(dir, 'persisted-documents.json');
    writeFileSync(file, JSON.stringify({ [documentHash(MANIFEST_DOC)]: MANIFEST_DOC }));
    const env = {
      PUBLIC_RATE_LIMIT: '100000',
      PERSISTED_DOCUMENTS: file,
      PERSISTED_DOCUMENTS_CACHE_MB: '1',
      PERSISTED_DOCUMENTS_PER_KEY_HOUR: '100000',
    };
    documents = openPersistedDocuments(loadConfig({ DATA_DIR: dir, ...env }), { shared: false });
    m = await createTestApp(env, { persistedDocuments: documents, clock: CLOCK });
    mServer = frontServer(m.app);
  });
  afterAll(async () => {
    await mServer.close();
    await m.close();
  });

  it('serves its documents by hash from the start, and still after a flood of registrations has filled the store', async () => {
    const to = await mServer.origin();
    const served = async () => json(await post({ extensions: persisted(documentHash(MANIFEST_DOC)) }, {}, to)).data;
    expect(await served()).toEqual({ units: expect.arrayContaining([{ id: 'meter' }]) });
    let peak = 0;
    for (let i = 0; i < 600; i++) {
      const flood = `{ __typename } # ${i} ${'x'.repeat(2000)}`;
      const answer = await post({ query: flood, extensions: persisted(documentHash(flood)) }, {}, to);
      expect(answer.status).toBe(200);
      peak = Math.max(peak, documents.registeredBytes);
    }
    expect(peak).toBeLessThanOrEqual(1024 * 1024);
    expect(peak).toBeGreaterThan(900 * 1024);
    expect(await served()).toEqual({ units: expect.arrayContaining([{ id: 'meter' }]) });
  });
});

describe('APQ and the rate limit', () => {
  let r: TestApp;
  let rServer: ReturnType<typeof frontServer>;
  const held = new PersistedDocuments({ maxBytes: 1024 * 1024 });
  beforeAll(async () => {
    r = await createTestApp({ PUBLIC_RATE_LIMIT: '2' }, { clock: CLOCK, persistedDocuments: held });
    rServer = frontServer(r.app);
  });
  afterAll(async () => {
    await rServer.close();
    await r.close();
  });

  it('a refused request answers its refusal, hash alone or not, and registers nothing', async () => {
    const to = await rServer.origin();
    const document = '{ unit(id: "lb") { id } }';
    const hash = documentHash(document);
    await post({ query: '{ __typename }' }, {}, to);
    await post({ query: '{ __typename }' }, {}, to);
    const refusedRegistration = await post({ query: document, extensions: persisted(hash) }, {}, to);
    const refusedLookup = await post({ extensions: persisted(hash) }, { accept: 'application/graphql-response+json' }, to);
    expect(json(refusedRegistration).errors![0].extensions.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(refusedLookup.status).toBe(429);
    expect(json(refusedLookup).errors).toHaveLength(1);
    expect(json(refusedLookup).errors![0].extensions.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(refusedLookup.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(held.registeredBytes).toBe(0);
  });
});

describe('APQ registrations per key', () => {
  let k: TestApp;
  let kServer: ReturnType<typeof frontServer>;
  beforeAll(async () => {
    k = await createTestApp(
      { PUBLIC_RATE_LIMIT: '100000', KEY_RATE_LIMIT: '100000', PERSISTED_DOCUMENTS_PER_KEY_HOUR: '3' },
      { clock: CLOCK },
    );
    kServer = frontServer(k.app);
  });
  afterAll(async () => {
    await kServer.close();
    await k.close();
  });

  it('keeps PERSISTED_DOCUMENTS_PER_KEY_HOUR new documents of a key an hour: the next are run but not kept; another key still registers', async () => {
    const to = await kServer.origin();
    const [flooding, other] = [await k.createKey('free'), await k.createKey('free')];
    const documents = Array.from({ length: 5 }, (_, i) => `{ __typename } # made-up document ${i}`);
    for (const document of documents) {
      const answer = await post(
        { query: document, extensions: persisted(documentHash(document)) },
        { authorization: `Bearer ${flooding}` },
        to,
      );
      expect(json(answer).data).toEqual({ __typename: 'Query' });
    }
    const found = async (document: string) =>
      json(await post({ extensions: persisted(documentHash(document)) }, {}, to)).errors === undefined;
    expect(await Promise.all(documents.map(found))).toEqual([true, true, true, false, false]);
    const another = '{ __typename } # made-up document of another key';
    await post({ query: another, extensions: persisted(documentHash(another)) }, { authorization: `Bearer ${other}` }, to);
    expect(await found(another)).toBe(true);
  });
});
