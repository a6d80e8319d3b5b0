import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentHash } from '../../src/domain/persisted-query';
import { directGraphQLMediaType } from '../../src/http/graphql/graphql-http';
import { createLanePair, type LanePair, type LaneRequest, type TwinKeys } from '../helpers/lanes';
import { DOCUMENTS } from '../hostile/graphql-requests';

/**
 * The GraphQL executor (GRAPHQL_EXECUTION=direct) answers exactly as Yoga's own handler with its
 * plugins (GRAPHQL_EXECUTION=yoga): same status, headers (but the request id and the date) and body.
 * Each request goes to both three times: a document's first run is graphql-js's, later ones run
 * the operation graphql-jit compiled, so both executions are held to Yoga's answer. POST and GET,
 * both media types, variables, operation names, errors at every stage, persisted-document hashes,
 * and cacheable GETs with their ETag and 304.
 */
const CONVERT = 'convert(value: "12.5", from: "inch", to: "centimeter") { input { value unit } result { value unit } category }';
const MEDIA_TYPES = [undefined, 'application/json', 'application/graphql-response+json'];
const RUNS = 3;

const post = (body: unknown, headers: Record<string, string> = {}): LaneRequest => ({
  method: 'POST',
  url: '/graphql',
  headers: { 'content-type': 'application/json', ...headers },
  rawBody: JSON.stringify(body),
});

const get = (params: Record<string, unknown>, headers: Record<string, string> = {}): LaneRequest => {
  const search = new URLSearchParams(Object.entries(params).map(([name, value]) => [name, typeof value === 'string' ? value : JSON.stringify(value)]));
  return { method: 'GET', url: `/graphql?${search.toString()}`, headers };
};

const withAccept = (accept: string | undefined, headers: Record<string, string> = {}) => (accept === undefined ? headers : { ...headers, accept });

describe('which GETs the executor takes, from the request line and headers alone', () => {
  const takes = (method: string, url: string, headers: Record<string, string>) => directGraphQLMediaType({ method, url, headers } as unknown as IncomingMessage);
  it.each<[string, string, Record<string, string>, string | undefined]>([
    ['GET', '/graphql?query=%7B__typename%7D', {}, 'application/json'],
    ['GET', '/graphql?query={__typename}', { accept: 'application/graphql-response+json' }, 'application/graphql-response+json'],
    ['GET', '/graphql?extensions=%7B%7D', { accept: '*/*' }, 'application/json'],
    ['GET', '/graphql?query=%7B__typename%7D', { accept: 'text/html' }, undefined],
    ['GET', '/graphql?query=%7B__typename%7D', { accept: 'TEXT/HTML, application/json' }, undefined],
    ['GET', '/graphql?query=%7B__typename%7D', { accept: 'text/event-stream' }, undefined],
    ['GET', '/graphql?query=%7B__typename%7D', { 'content-length': '0' }, undefined],
    ['GET', '/graphql?query=%7B__typename%7D', { 'transfer-encoding': 'chunked' }, undefined],
    ['GET', '/graphql?query=%7B__typename%7D#fragment', {}, undefined],
    ['GET', '/graphql?query={ __typename }', {}, undefined],
    ['GET', '/graphql', {}, undefined],
    ['GET', '/graphql/?query=%7B__typename%7D', {}, undefined],
    ['HEAD', '/graphql?query=%7B__typename%7D', {}, undefined],
  ])('%s %s %j: %s', (method, url, headers, expected) => {
    expect(takes(method, url, headers)).toBe(expected);
  });
});

describe('the GraphQL executor answers as Yoga does', () => {
  let lanes: LanePair;
  let keys: TwinKeys;
  let auth: Record<string, string>;
  beforeAll(async () => {
    lanes = await createLanePair('sqlite');
    const key = await lanes.twinKeys('business');
    keys = { template: [key.fast], fast: [key.fast], yoga: [key.yoga] };
    auth = { authorization: `Bearer ${key.fast}` };
  });
  afterAll(() => lanes?.close());

  const repeated = async (request: LaneRequest) => {
    for (let run = 0; run < RUNS; run += 1) await lanes.expectSameAnswer(request, keys);
  };

  it('for POSTs and GETs: valid documents, variables, operation names and errors, under each media type', async () => {
    for (const accept of MEDIA_TYPES) {
      const cases: Array<[Record<string, unknown>, Record<string, string>]> = [
        [{ query: `{ ${CONVERT} }` }, auth],
        [{ query: `{ ${CONVERT} }` }, {}],
        [{ query: '{ health { status } categories { id name unitCount } unit(id: "ft") { id symbol aliases } }' }, {}],
        [{ query: 'query($v: Decimal!, $d: Int) { convert(value: $v, from: "mile", to: "km", decimals: $d) { result { value } } }', variables: { v: '-2.5', d: 3 } }, auth],
        [{ query: 'query($v: Decimal!) { convert(value: $v, from: "mile", to: "km") { result { value } } }', variables: { v: 2.5 } }, auth],
        [{ query: 'query($v: Decimal!) { convert(value: $v, from: "mile", to: "km") { result { value } } }' }, auth],
        [{ query: 'query A { health { status } } query B { categories { id } }', operationName: 'B' }, {}],
        [{ query: 'query A { health { status } } query B { categories { id } }', operationName: 'A' }, {}],
        [{ query: 'query A { health { status } } query B { categories { id } }' }, {}],
        [{ query: 'query A { health { status } }', operationName: 'Nope' }, {}],
        [{ query: '{ convert(value: "1", from: "m", to: "kg") { result { value } } }' }, auth],
        [{ query: '{ convertCurrency(value: "100", from: "usd", to: "jpy", date: "2024-03-30") { result { value } rate { date } } }' }, auth],
        [{ query: '{ rates(date: "2024-03-28") { date base rates } }' }, {}],
        [{ query: '{ category(id: "nope") { id } }' }, {}],
        [{ query: '{ nope }' }, {}],
        [{ query: '{' }, {}],
        [{ query: 'mutation { x }' }, {}],
        [{ query: 'subscription { health { status } }' }, {}],
      ];
      for (const [params, headers] of cases) {
        await repeated(post(params, withAccept(accept, headers)));
        await repeated(get(params, withAccept(accept, headers)));
      }
    }
  });

  it('for every document of the hostile suite, by POST and by GET', async () => {
    for (const query of DOCUMENTS) {
      await repeated(post({ query }, auth));
      await repeated(get({ query }, withAccept('application/graphql-response+json', auth)));
    }
  });

  it('for persisted documents: a hash unknown, registered with its document, then sent alone by POST and GET, and a hash that is not the document’s', async () => {
    const query = '{ units(category: "length") { id } }';
    const hash = documentHash(query);
    const persisted = { persistedQuery: { version: 1, sha256Hash: hash } };
    for (const accept of MEDIA_TYPES) {
      await lanes.expectSameAnswer(post({ extensions: { persistedQuery: { version: 1, sha256Hash: documentHash(`${query} # ${accept}`) } } }, withAccept(accept)), keys);
      await lanes.expectSameAnswer(get({ extensions: { persistedQuery: { version: 1, sha256Hash: documentHash(`${query} # ${accept} GET`) } } }, withAccept(accept)), keys);
      await lanes.expectSameAnswer(post({ query: '{ health { status } }', extensions: persisted }, withAccept(accept)), keys);
      await lanes.expectSameAnswer(post({ extensions: { persistedQuery: { version: 2, sha256Hash: hash } } }, withAccept(accept)), keys);
    }
    await lanes.expectSameAnswer(post({ query, extensions: persisted }), keys);
    for (const accept of MEDIA_TYPES) {
      await repeated(post({ extensions: persisted }, withAccept(accept)));
      await repeated(get({ extensions: persisted }, withAccept(accept, auth)));
    }
  });

  it('for cacheable GETs: Cache-Control, a strong ETag, Vary, and 304 for If-None-Match', async () => {
    for (const query of ['{ units(category: "length") { id } }', '{ categories { id name } }', '{ unit(id: "ft") { id symbol } }']) {
      for (const headers of [{}, auth]) {
        const first = await lanes.sameAnswer(get({ query }, headers), keys);
        const etag = first.headers.get('etag');
        expect(`${query} ${JSON.stringify(headers)}: ${etag}`).toMatch(/: "/);
        expect(first.headers.get('cache-control'), query).not.toBe('no-store');
        await repeated(get({ query }, { ...headers, 'if-none-match': etag! }));
        const notModified = await lanes.sameAnswer(get({ query }, { ...headers, 'if-none-match': etag! }), keys);
        expect(notModified.status).toBe(304);
      }
    }
  });
});
