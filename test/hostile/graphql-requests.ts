/** Hostile requests of the GraphQL endpoint: documents, parameters, bodies, headers and methods. */
import fc from 'fast-check';
import { GRAPHQL_LIMITS } from '../../src/graphql/limits';
import { applyDamage, authorization, contentType, damage } from './transport';
import { anyJson, hostileText, jsonText, objectText, PROTOTYPE_KEYS } from './values';

const CONVERT = 'convert(value: "1", from: "m", to: "ft") { result { value } }';
const fill = (unit: string, bytes = GRAPHQL_LIMITS.maxDocumentBytes - 20) => unit.repeat(Math.floor(bytes / unit.length));

/** Deep documents: graphql-js parses recursively, so nesting must be refused before it overflows the stack. */
const nestedDocument = fc
  .tuple(fc.integer({ min: 1, max: 6000 }), fc.constantFrom('list', 'selection', 'type', 'object', 'introspection'))
  .map(([n, kind]) => {
    switch (kind) {
      case 'list':
        return `{ units(category: ${'['.repeat(n)}"length"${']'.repeat(n)}) { id } }`;
      case 'selection':
        return `{ ${'a { '.repeat(n)}b${' }'.repeat(n)} }`;
      case 'type':
        return `query($a: ${'['.repeat(n)}Int${']'.repeat(n)}) { __typename }`;
      case 'object':
        return `{ batch(items: ${'{value: '.repeat(n)}"1"${'}'.repeat(n)}) { failed } }`;
      case 'introspection':
        return `{ __schema { types { fields { type ${'{ ofType '.repeat(n)}{ name }${' }'.repeat(n)} } } } }`;
    }
  });

export const DOCUMENTS = [
  '{ health { status } }',
  '{ categories { id } units(category: "length") { id } }',
  `{ ${CONVERT} }`,
  `{ a: ${CONVERT} b: ${CONVERT} }`,
  '{ __typename @include(if: true) }',
  '{ health @skip(if: true) { status } categories @include(if: false) { id } }',
  '{ __typename @nosuch }',
  'query($s: Boolean!) { health @skip(if: $s) { status } }',
  '{ __schema { types { name } } }',
  '{ __type(name: "Query") { fields { name } } }',
  '{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }',
  '{ ...Missing }',
  'fragment F on Query { __typename }',
  '',
  ' ',
  '{',
  '}',
  'query',
  '{ health { status } } garbage',
  'query A { __typename } query B { __typename }',
  'mutation { x }',
  'subscription { health { status } }',
  '{ units(category: """length""") { id } }',
  '# only a comment',
  '\uFEFF{ __typename }',
  '{ units(category: "\\ud800") { id } }',
  '{ __typename } \u0000',
  `{ ${Array.from({ length: 51 }, (_, i) => `c${i}: ${CONVERT}`).join(' ')} }`,
  `{ ${Array.from({ length: 50 }, (_, i) => `c${i}: ${CONVERT}`).join(' ')} }`,
  `{ ${fill('__typename ')}}`,
  `{ ${fill('health { status } ')}}`,
  `{ ${fill('...F ', GRAPHQL_LIMITS.maxDocumentBytes - 60)}} fragment F on Query { __typename }`,
  `{ ${fill('x', GRAPHQL_LIMITS.maxDocumentBytes)} }`,
];

const document = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...DOCUMENTS) },
  { weight: 2, arbitrary: nestedDocument },
  { weight: 1, arbitrary: hostileText },
);

/** The members of a GraphQL request, each now and then of the wrong type. */
const params = fc.record({
  query: fc.oneof({ weight: 6, arbitrary: document }, { weight: 1, arbitrary: anyJson }),
  variables: fc.oneof(
    { weight: 4, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constant({ s: true }) },
    { weight: 2, arbitrary: anyJson },
  ),
  operationName: fc.oneof(
    { weight: 6, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>('A', 'B', 'Nope', '', 5, null, ['A']) },
  ),
  extensions: fc.oneof(
    { weight: 6, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(5, 'x', { persistedQuery: { version: 1, sha256Hash: 'abc' } }) },
  ),
  extra: fc.option(fc.tuple(fc.constantFrom(...PROTOTYPE_KEYS, 'batch', 'id'), anyJson), { freq: 8, nil: undefined }),
});

const ACCEPT = [
  undefined,
  'application/json',
  'application/graphql-response+json',
  '*/*',
  'text/html',
  'application/xml',
  'application/json;q=0, text/plain',
  'application/graphql-response+json, application/json',
];

export interface TransportRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export const graphQLRequest: (key: string, freeKey: string) => fc.Arbitrary<TransportRequest> = (key, freeKey) =>
  fc
    .record({
      params,
      damage,
      method: fc.oneof(
        { weight: 8, arbitrary: fc.constant('POST') },
        { weight: 2, arbitrary: fc.constant('GET') },
        { weight: 1, arbitrary: fc.constantFrom('PUT', 'DELETE', 'PATCH') },
      ),
      type: contentType,
      accept: fc.constantFrom(...ACCEPT),
      auth: authorization(key, freeKey),
    })
    .map(({ params, damage, method, type, accept, auth }) => {
      const entries = Object.entries(params).filter(([name, value]) => name !== 'extra' && value !== undefined);
      if (params.extra) entries.push(params.extra);
      const headers: Record<string, string> = {};
      if (auth !== undefined) headers['authorization'] = auth;
      if (method === 'GET') {
        // A GET answers GraphiQL to browsers: ask for JSON.
        headers['accept'] = 'application/json';
        const search = new URLSearchParams(entries.map(([name, value]) => [name, typeof value === 'string' ? value : jsonText(value)]));
        return { method, url: `/graphql?${search}`, headers };
      }
      if (type !== undefined) headers['content-type'] = type;
      if (accept !== undefined) headers['accept'] = accept;
      return { method, url: '/graphql', headers, body: applyDamage(objectText(entries), damage) };
    });
