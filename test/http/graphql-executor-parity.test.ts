import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentHash } from '../../src/domain/persisted-query';
import { SourceHistory } from '../../src/domain/sources/history';
import { servedSources } from '../../src/services/currency/held-sources';
import { createGraphQLOracle, type GraphQLOracle, type ParityRequest } from '../helpers/graphql-oracle';
import { DOCUMENTS } from '../hostile/graphql-requests';

/**
 * The front answers every GraphQL request exactly as Yoga's own handler with this project's steps as
 * plugins answers it, live (graphql-oracle.ts): same status, headers (but the request id and the
 * date) and body. Each request of the executor's suites is sent three times: a document's first
 * run is graphql-js's, later ones run the operation graphql-jit compiled, so both executions are
 * held to Yoga's answer. POST and GET, both media
 * types, variables, operation names, errors at every stage, persisted-document hashes, cacheable GETs
 * with their ETag and 304; then streamed answers (server-sent events, multipart), bodies past the
 * limit or chunked, other content types and methods, and parameters Yoga refuses; and requests of
 * today's schema (sources of rates, its published figures) and others, added as any request can be.
 */
const CONVERT = 'convert(value: "12.5", from: "inch", to: "centimeter") { input { value unit } result { value unit } category }';
const MEDIA_TYPES = [undefined, 'application/json', 'application/graphql-response+json'];
const RUNS = 3;
/** Made-up NBP tables beside the ECB's made-up rates: the ECB's answers are unchanged (it quotes USD, JPY and GBP), KES only NBP's table B prices. */
const NBP = SourceHistory.from([
  {
    source: 'nbp',
    table: 'A',
    date: '2024-03-28',
    base: 'PLN',
    figures: { USD: { value: '4.0000', units: '1', direction: 'base-per-units' } },
  },
  {
    source: 'nbp',
    table: 'B',
    date: '2024-03-27',
    base: 'PLN',
    figures: { KES: { value: '0.0320', units: '1', direction: 'base-per-units' } },
  },
]);

const post = (body: unknown, headers: Record<string, string> = {}): ParityRequest => ({
  method: 'POST',
  url: '/graphql',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

const get = (params: Record<string, unknown>, headers: Record<string, string> = {}): ParityRequest => {
  const search = new URLSearchParams(
    Object.entries(params).map(([name, value]) => [name, typeof value === 'string' ? value : JSON.stringify(value)]),
  );
  return { method: 'GET', url: `/graphql?${search.toString()}`, headers };
};

const withAccept = (accept: string | undefined, headers: Record<string, string> = {}) =>
  accept === undefined ? headers : { ...headers, accept };

describe('the GraphQL executor answers as Yoga does', () => {
  let oracle: GraphQLOracle;
  let auth: Record<string, string>;
  beforeAll(async () => {
    oracle = await createGraphQLOracle('sqlite', { sources: { history: () => NBP, enabled: () => servedSources('all') } });
    auth = { authorization: `Bearer ${await oracle.key('business')}` };
  });
  afterAll(() => oracle?.close());

  const once = (request: ParityRequest) => oracle.expectSameAnswer(request);
  const repeated = async (request: ParityRequest) => {
    for (let run = 0; run < RUNS; run += 1) await once(request);
  };

  it('for POSTs and GETs: valid documents, variables, operation names and errors, under each media type', async () => {
    for (const accept of MEDIA_TYPES) {
      const cases: Array<[Record<string, unknown>, Record<string, string>]> = [
        [{ query: `{ ${CONVERT} }` }, auth],
        [{ query: `{ ${CONVERT} }` }, {}],
        [{ query: '{ health { status } categories { id name unitCount } unit(id: "ft") { id symbol aliases } }' }, {}],
        [
          {
            query: 'query($v: Decimal!, $d: Int) { convert(value: $v, from: "mile", to: "km", decimals: $d) { result { value } } }',
            variables: { v: '-2.5', d: 3 },
          },
          auth,
        ],
        [{ query: 'query($v: Decimal!) { convert(value: $v, from: "mile", to: "km") { result { value } } }', variables: { v: 2.5 } }, auth],
        [{ query: 'query($v: Decimal!) { convert(value: $v, from: "mile", to: "km") { result { value } } }' }, auth],
        [{ query: 'query A { health { status } } query B { categories { id } }', operationName: 'B' }, {}],
        [{ query: 'query A { health { status } } query B { categories { id } }', operationName: 'A' }, {}],
        [{ query: 'query A { health { status } } query B { categories { id } }' }, {}],
        [{ query: 'query A { health { status } }', operationName: 'Nope' }, {}],
        [{ query: '{ convert(value: "1", from: "m", to: "kg") { result { value } } }' }, auth],
        [
          { query: '{ convertCurrency(value: "100", from: "usd", to: "jpy", date: "2024-03-30") { result { value } rate { date } } }' },
          auth,
        ],
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

  it('for requests of the schema as it is now: conversions over a chosen source, their published figures, the types that name them', async () => {
    const figures = 'figures { source currency value units table date }';
    const cases: Array<[Record<string, unknown>, Record<string, string>]> = [
      [{ query: '{ __type(name: "PublishedFigure") { name fields { name type { name kind ofType { name } } } } }' }, {}],
      [{ query: '{ __type(name: "RatesSource") { enumValues { name } } }' }, {}],
      [
        {
          query: `{ convertCurrency(value: "100", from: "usd", to: "jpy", date: "2024-03-28", source: ecb) { result { value } rate { date source ${figures} } } }`,
        },
        auth,
      ],
      [{ query: '{ convertCurrency(value: "100", from: "usd", to: "jpy", source: nbp) { result { value } } }' }, auth],
      [
        {
          query: `{ convertCurrency(value: "100", from: "kes", to: "usd", date: "2024-03-28") { result { value } rate { source ${figures} } } }`,
        },
        auth,
      ],
      [{ query: `{ convertCurrency(value: "100", from: "kes", to: "usd", source: ecb) { result { value } } }` }, auth],
      [{ query: '{ convertCurrency(value: "100", from: "usd", to: "jpy", source: "nope") { result { value } } }' }, auth],
      [
        {
          query:
            'query($s: RatesSource) { batch(items: [{value: "5", from: "usd", to: "gbp", date: "2024-03-28", source: $s}, {value: "1", from: "m", to: "ft", source: $s}]) { succeeded failed } }',
          variables: { s: 'ecb' },
        },
        auth,
      ],
    ];
    for (const [params, headers] of cases) {
      await repeated(post(params, headers));
      await repeated(get(params, headers));
    }
    // Answers of today's schema, not refusals: the figure's fields, and the ECB's rate that day.
    expect((await once(post(cases[0]![0]))).text).toContain(
      '{"name":"units","type":{"name":null,"kind":"NON_NULL","ofType":{"name":"Decimal"}}}',
    );
    expect((await once(post(cases[2]![0], auth))).text).toContain('"rate":{"date":"2024-03-28","source":"ecb","figures":null}');
    expect((await once(post(cases[4]![0], auth))).text).toContain('"source":"nbp","currency":"KES","value":"0.0320"');
  });

  it('for names in a language, coded bodies, a hash served by GET as a stream, and a mutation or subscription by GET', async () => {
    const query = '{ units(category: "length") { id name } }';
    const persisted = { persistedQuery: { version: 1, sha256Hash: documentHash(`${query} # languages`) } };
    const requests: ParityRequest[] = [
      get({ query }, { 'accept-language': 'de' }),
      get({ query }, { 'accept-language': 'fr, de;q=0.5', accept: 'application/graphql-response+json' }),
      post({ query: '{ unit(id: "ft") { name } }' }, { 'accept-language': 'xx' }),
      post({ query: '{ health { status } }' }, { 'content-encoding': 'gzip' }),
      post({ query: '{ health { status } }' }, { 'content-encoding': 'identity' }),
      post({ query: `${query} # languages`, extensions: persisted }),
      get({ extensions: persisted }, { accept: 'text/event-stream', 'accept-language': 'de' }),
      get({ query: 'mutation { x }' }, { accept: 'text/event-stream' }),
      get({ query: 'subscription { health { status } }' }, { accept: 'multipart/mixed' }),
      post({ query: 'query($a: Int) { health { status } }', variables: { a: 'x' } }),
      post({ query: '{ convertCurrency(value: "100", from: "usd", to: "jpy") { result { value } } }' }, { authorization: 'Basic abc' }),
    ];
    for (const request of requests) await once(request);
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
      await once(
        post({ extensions: { persistedQuery: { version: 1, sha256Hash: documentHash(`${query} # ${accept}`) } } }, withAccept(accept)),
      );
      await once(
        get({ extensions: { persistedQuery: { version: 1, sha256Hash: documentHash(`${query} # ${accept} GET`) } } }, withAccept(accept)),
      );
      await once(post({ query: '{ health { status } }', extensions: persisted }, withAccept(accept)));
      await once(post({ extensions: { persistedQuery: { version: 2, sha256Hash: hash } } }, withAccept(accept)));
    }
    await once(post({ query, extensions: persisted }));
    for (const accept of MEDIA_TYPES) {
      await repeated(post({ extensions: persisted }, withAccept(accept)));
      await repeated(get({ extensions: persisted }, withAccept(accept, auth)));
    }
  });

  it('for cacheable GETs: Cache-Control, a strong ETag, Vary, and 304 for If-None-Match', async () => {
    for (const query of ['{ units(category: "length") { id } }', '{ categories { id name } }', '{ unit(id: "ft") { id symbol } }']) {
      for (const headers of [{}, auth]) {
        const first = await once(get({ query }, headers));
        const etag = first.headers.get('etag');
        expect(`${query} ${JSON.stringify(headers)}: ${etag}`).toMatch(/: "/);
        expect(first.headers.get('cache-control'), query).not.toBe('no-store');
        await repeated(get({ query }, { ...headers, 'if-none-match': etag! }));
        const notModified = await once(get({ query }, { ...headers, 'if-none-match': etag! }));
        expect(notModified.status).toBe(304);
      }
    }
  });

  it('for streamed answers, bodies it cannot take, other methods and parameters Yoga refuses', async () => {
    const json = { 'content-type': 'application/json' };
    const body = (text: string, headers: Record<string, string> = json): ParityRequest => ({
      method: 'POST',
      url: '/graphql',
      headers,
      body: text,
    });
    const conversion = `{ ${CONVERT} }`;
    const streams = [
      'text/event-stream',
      'multipart/mixed',
      'multipart/mixed; boundary="-"',
      'application/json, text/event-stream',
      'text/event-stream, application/graphql-response+json',
    ];
    for (const accept of streams) {
      for (const query of ['{ health { status } }', conversion, '{ nope }', '{', 'mutation { x }', 'subscription { health { status } }']) {
        await once(post({ query }, { ...auth, accept }));
        await once(get({ query }, { ...auth, accept }));
      }
      await once(post({ query: '{ health { status } }', extra: 1 }, { accept }));
      await once(post({ variables: {} }, { accept }));
      await once(body('{', { ...json, accept }));
      await once(get({ query: '{ health { status } }', variables: 'nope' }, { accept }));
      await once(
        post({ extensions: { persistedQuery: { version: 1, sha256Hash: documentHash('{ units { id } } # stream') } } }, { accept }),
      );
    }
    const big = JSON.stringify({ query: `{ health { status } } # ${'x'.repeat(70 * 1024)}` });
    const request: Array<ParityRequest> = [
      // Chunked bodies, within the limit and past it; declared lengths past it.
      { ...post({ query: conversion }, auth), chunked: true },
      { ...post({ query: '{ nope }' }, { accept: 'application/graphql-response+json' }), chunked: true },
      { ...body(big), chunked: true },
      body(big),
      body(big, { ...json, accept: 'text/event-stream' }),
      // Other content types, and none.
      body(JSON.stringify({ query: '{ health { status } }' }), { 'content-type': 'text/plain' }),
      body(JSON.stringify({ query: '{ health { status } }' }), { 'content-type': 'application/graphql' }),
      body('query=%7B__typename%7D', { 'content-type': 'application/x-www-form-urlencoded' }),
      body(JSON.stringify({ query: '{ health { status } }' }), {}),
      body(JSON.stringify({ query: '{ health { status } }' }), { 'content-type': 'APPLICATION/JSON; charset=utf-8' }),
      body(JSON.stringify({ query: '{ health { status } }' }), { 'content-type': 'application/json; charset=latin1' }),
      // A query string on a POST.
      { ...post({ query: '{ health { status } }' }), url: '/graphql?query=%7B__typename%7D' },
      { ...post({ query: '{ health { status } }' }), url: '/graphql?' },
      // Other methods.
      { method: 'HEAD', url: '/graphql?query=%7B__typename%7D', headers: {} },
      { method: 'HEAD', url: '/graphql', headers: { accept: 'application/json' } },
      { method: 'PUT', url: '/graphql', headers: json, body: JSON.stringify({ query: '{ health { status } }' }) },
      { method: 'DELETE', url: '/graphql?query=%7B__typename%7D', headers: {} },
      { method: 'OPTIONS', url: '/graphql', headers: {} },
      { method: 'OPTIONS', url: '/graphql', headers: { origin: 'https://example.com', 'access-control-request-method': 'POST' } },
      { method: 'PATCH', url: '/graphql', headers: json, body: '{}' },
      // A GET with a body.
      { ...get({ query: '{ health { status } }' }), body: '' },
      { ...get({ query: '{ health { status } }' }), body: JSON.stringify({ query: '{ units { id } }' }), headers: json },
      { ...get({ query: '{ health { status } }' }), chunked: true, body: 'x' },
      // Bodies and parameters Yoga refuses.
      body('{"query": "{ health { status } }",'),
      body(''),
      body('null'),
      body('[]'),
      body('"{ health { status } }"'),
      body('\uFEFF{"query": "{ health { status } }"}'),
      post({}),
      post({ variables: {} }),
      post({ query: null }),
      post({ query: 5 }),
      post({ query: ['{ health { status } }'] }),
      post({ query: '{ health { status } }', variables: [] }),
      post({ query: '{ health { status } }', variables: 'x' }),
      post({ query: '{ health { status } }', operationName: 5 }),
      post({ query: '{ health { status } }', extensions: 'x' }),
      post({ query: '{ health { status } }', extensions: [] }),
      post({ query: '{ health { status } }', extra: 1 }),
      post({ query: '{ health { status } }', extra: null }),
      post({ query: '{ health { status } }', extra: 1 }, { accept: 'application/graphql-response+json' }),
      post({ query: 5 }, { accept: 'application/graphql-response+json' }),
      body('{', { ...json, accept: 'application/graphql-response+json' }),
      { method: 'GET', url: '/graphql', headers: { accept: 'application/json' } },
      { method: 'GET', url: '/graphql?', headers: {} },
      { method: 'GET', url: '/graphql?variables=%7B%7D', headers: {} },
      get({ query: '{ health { status } }', variables: 'nope' }),
      get({ query: '{ health { status } }', extensions: 'nope' }),
      get({ query: '{ health { status } }', variables: '[]' }),
      get({ query: '{ health { status } }', variables: '5' }),
      get({ query: '{ health { status } }', extensions: '"x"' }),
      get({ query: '{ health { status } }', variables: 'nope' }, { accept: 'application/graphql-response+json' }),
      // Targets a URL reads its own way.
      { method: 'GET', url: '/graphql?query={__typename}#fragment', headers: {} },
      { method: 'GET', url: '/graphql?query=%7B__typename%7D#', headers: {} },
      { method: 'GET', url: '/graphql?query={%20__typename%20}', headers: {} },
      { method: 'GET', url: '/graphql?query={__typename}\u00e9', headers: {} },
      { method: 'GET', url: '/graphql?query=%7B__typename%7D&query=%7Bhealth%7Bstatus%7D%7D', headers: {} },
      { method: 'GET', url: '/graphql?query=%7B__typename%7D&operationName=', headers: {} },
      { method: 'GET', url: '/graphql?query=%zz', headers: {} },
      { method: 'GET', url: '/graphql?variables=%7B%7D#&query=%7B__typename%7D', headers: {} },
      { method: 'GET', url: '/graphql?query="%7B__typename%7D"', headers: {} },
      { method: 'GET', url: '/graphql?query=%7B__typename%7D&variables={"a":1}', headers: {} },
      // GraphQL by GET from a client that also accepts HTML, with GraphiQL on.
      get({ query: '{ health { status } }' }, { accept: 'text/html' }),
      { ...get({ query: '{ health { status } }' }, { accept: 'text/html' }), method: 'HEAD' },
      { method: 'GET', url: '/graphql', headers: { accept: 'text/html, */*' } },
    ];
    for (const one of request) await once(one);
  });
});
