import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHQL_LIMITS } from '../../src/graphql/limits';
import { createGraphQLOracle, type GraphQLOracle, type ParityRequest } from '../helpers/graphql-oracle';
import { postgresTitle, TEST_DATABASE_URL } from '../helpers/postgres';
import { DOCUMENTS, graphQLRequest } from '../hostile/graphql-requests';

/**
 * POST /graphql answers as Yoga's own handler with this project's steps as plugins answers, live
 * (graphql-oracle.ts): same status, same headers (but the request id and the date), same body.
 * Each suite sends its requests in order to both apps with keys of twin fresh accounts, so the
 * quota headers compare too. Once on SQLite and once on PostgreSQL (TEST_DATABASE_URL).
 */
const CONVERT = 'convert(value: "12.5", from: "inch", to: "centimeter") { input { value unit } result { value unit } category }';
const JSON_TYPE = { 'content-type': 'application/json' };
/** graphql-request, Apollo Client, urql and GraphiQL's Accept headers, and variations Yoga's negotiation reads its own way. */
const ACCEPT_HEADERS = [
  'application/graphql-response+json, application/json',
  'application/graphql-response+json,application/json;q=0.9',
  'application/graphql-response+json, application/graphql+json, application/json, text/event-stream, multipart/mixed',
  'application/json, multipart/mixed',
  'application/json, text/event-stream',
  'text/event-stream',
  'multipart/mixed; boundary="-"',
  'application/json;q=0, application/graphql-response+json',
  'APPLICATION/JSON',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/json;charset=latin1, application/graphql-response+json',
  'application/*',
  '*/json',
  'text/*',
  'text/html, application/xhtml+xml, */*;q=0.8',
  'image/png',
  ',',
  ';',
  '*',
];

for (const backend of ['sqlite', 'postgres'] as const) {
  const title = backend === 'sqlite' ? 'POST /graphql on SQLite' : postgresTitle('POST /graphql on PostgreSQL');
  describe.skipIf(backend === 'postgres' && !TEST_DATABASE_URL)(title, () => {
    let oracle: GraphQLOracle;
    beforeAll(async () => {
      oracle = await createGraphQLOracle(backend);
    });
    afterAll(() => oracle?.close());
    const expectSameAnswer = (request: ParityRequest) => oracle.expectSameAnswer(request);

    const post = (body: unknown, headers: Record<string, string> = {}): ParityRequest => ({
      method: 'POST',
      url: '/graphql',
      headers: { ...JSON_TYPE, ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

    describe('answers exactly as Yoga does', () => {
      it('for documented requests: conversions, keys, plans, quota, variables, operations and errors', async () => {
        const [dev, free, spent] = [await oracle.key('developer'), await oracle.key('free'), await oracle.key('free', 1000)];
        const auth = (key: string) => ({ authorization: `Bearer ${key}` });
        const cases: ParityRequest[] = [
          post({ query: `{ ${CONVERT} }` }, auth(dev)),
          post({ query: `{ ${CONVERT} }` }, { ...auth(free), accept: 'application/graphql-response+json' }),
          post({ query: `{ ${CONVERT} }` }),
          post({ query: `{ ${CONVERT} }` }, { accept: 'application/graphql-response+json' }),
          post({ query: `{ ${CONVERT} }` }, { authorization: 'Bearer msr_test_nope' }),
          post({ query: `{ ${CONVERT} }` }, auth(spent)),
          post({ query: `{ a: ${CONVERT} b: ${CONVERT} }` }, auth(free)),
          post({ query: `{ a: ${CONVERT} b: ${CONVERT} }` }, auth(spent)),
          post({ query: '{ convert(value: "1", from: "m", to: "kg") { result { value } } }' }, auth(free)),
          post({ query: '{ convert(value: "1", from: "m", to: "nope") { result { value } } }' }, auth(free)),
          post({ query: '{ convert(value: "1", from: "m", to: "ft", decimals: 41) { result { value } } }' }, auth(free)),
          post({ query: '{ convert(value: "1e3", from: "m", to: "ft") { result { value } } }' }, auth(free)),
          post(
            {
              query: 'query($v: Decimal!, $d: Int) { convert(value: $v, from: "mile", to: "km", decimals: $d) { result { value } } }',
              variables: { v: '-2.5', d: 3 },
            },
            auth(free),
          ),
          post(
            { query: 'query($v: Decimal!) { convert(value: $v, from: "mile", to: "km") { result { value } } }', variables: { v: 2.5 } },
            auth(free),
          ),
          post({ query: 'query($v: Decimal!) { convert(value: $v, from: "mile", to: "km") { result { value } } }' }, auth(free)),
          post({ query: 'query A { health { status } } query B { categories { id } }', operationName: 'B' }),
          post({ query: 'query A { health { status } } query B { categories { id } }' }),
          post({ query: 'query A { health { status } }', operationName: 'Nope' }),
          post(
            {
              query:
                '{ convertCurrency(value: "100", from: "usd", to: "jpy", decimals: 0, date: "2024-03-30") { result { value } rate { date } } }',
            },
            auth(dev),
          ),
          post({ query: '{ convertCurrency(value: "100", from: "usd", to: "jpy", date: "2024-03-30") { result { value } } }' }, auth(free)),
          post({ query: '{ convertCurrency(value: "100", from: "usd", to: "xyz") { result { value } } }' }, auth(free)),
          post(
            {
              query:
                '{ batch(items: [{value: "1", from: "m", to: "ft"}, {value: "1", from: "m", to: "kg"}, {value: "5", from: "usd", to: "gbp", date: "2024-03-28"}]) { succeeded failed } }',
            },
            auth(dev),
          ),
          post({ query: '{ batch(items: [{value: "1", from: "m", to: "ft"}]) { succeeded failed } }' }, auth(spent)),
          post({ query: `{ ${Array.from({ length: 51 }, (_, i) => `c${i}: ${CONVERT}`).join(' ')} }` }, auth(dev)),
          post({ query: '{ health { status } categories { id name unitCount } unit(id: "ft") { id symbol aliases } }' }),
          post({ query: '{ category(id: "nope") { id } }' }),
          post({ query: '{ __schema { queryType { name } } }' }),
          post({ query: '{ nope }' }),
          post({ query: '{ nope }' }, { accept: 'application/graphql-response+json' }),
          post({ query: '{' }, { accept: 'application/graphql-response+json' }),
          post({ query: '{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }' }),
          post({ query: `{ ${'a { '.repeat(70)}b${' }'.repeat(70)} }` }),
          post({ query: `{ ${'__typename '.repeat(Math.ceil(GRAPHQL_LIMITS.maxDocumentBytes / 11) + 1)}}` }),
          post({ query: 'mutation { x }' }),
          post({ query: '{ health { status } }', variables: null, operationName: null, extensions: null }),
          post({ query: '{ health { status } }', extensions: { persistedQuery: { version: 1, sha256Hash: 'abc' } } }),
          // Bodies Yoga refuses in its own words.
          post({ query: '{ health { status } }', extra: 1 }),
          post({ query: '{ health { status } }', operationName: 5 }),
          post({ query: '{ health { status } }', variables: [] }),
          post({ query: 5 }),
          post({ variables: {} }),
          post([{ query: '{ health { status } }' }]),
          post('null'),
          post('{"query": "{ health { status } }",'),
          post('\uFEFF{"query": "{ health { status } }"}'),
          post('{"query": "{ units(category: \\"\\ud800\\") { id } }"}'),
        ];
        for (const request of cases) await expectSameAnswer(request);
      });

      it('with the same cost extensions: conversions requested and charged, quota and rate limit', async () => {
        const [free, spent] = [await oracle.key('free'), await oracle.key('free', 1000)];
        const three = `{ a: ${CONVERT} b: convert(value: "1", from: "m", to: "kg") { category } c: convertCurrency(value: "1", from: "EUR", to: "USD") { result { value } } }`;
        const expected: Array<[ParityRequest, string]> = [];
        for (const accept of ['application/json', 'application/graphql-response+json']) {
          expected.push(
            [
              post({ query: three }, { authorization: `Bearer ${free}`, accept }),
              '{"requestedConversions":3,"chargedConversions":2,"requests":3}',
            ],
            [
              post({ query: three }, { authorization: `Bearer ${spent}`, accept }),
              '{"requestedConversions":3,"chargedConversions":0,"requests":3}',
            ],
            [post({ query: '{ units { id } }' }, { accept }), '{"requestedConversions":0,"chargedConversions":0,"requests":1}'],
          );
        }
        for (const [request, cost] of expected) {
          const answer = await expectSameAnswer(request);
          expect(answer.text).toContain(`"extensions":{"cost":${cost}`);
        }
      });

      it('for every document of the hostile suite, under each Accept the lane takes', async () => {
        const key = await oracle.key('business');
        for (const query of DOCUMENTS) {
          for (const accept of [undefined, '*/*', 'application/json', 'application/graphql-response+json']) {
            await expectSameAnswer(post({ query }, { authorization: `Bearer ${key}`, ...(accept === undefined ? {} : { accept }) }));
          }
        }
      });

      it('under the Accept headers of GraphQL clients and their near misses', async () => {
        const key = await oracle.key('business');
        for (const accept of ACCEPT_HEADERS) {
          for (const query of [`{ ${CONVERT} }`, '{ nope }', '{ convert(value: "1", from: "m", to: "kg") { result { value } } }']) {
            await expectSameAnswer(post({ query }, { authorization: `Bearer ${key}`, accept }));
          }
        }
      });

      it('for hostile requests: documents, parameters, damaged bodies, content types, Accept and keys', async () => {
        const [key, freeKey] = [await oracle.key('developer'), await oracle.key('free')];
        // A fixed sample (a fixed seed), so a failure is found again by the same run.
        for (const r of fc.sample(graphQLRequest(key, freeKey), { numRuns: 150, seed: 35 })) await expectSameAnswer(r);
      });
    });
  });
}
