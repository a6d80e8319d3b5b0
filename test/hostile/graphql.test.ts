import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql';
import { createHostileApp, expectGraphQLInvariants, postGraphQL, show, type HostileApp } from './harness';
import { VALID_ARGS, fieldArgs, validArgs } from './arguments';
import { authorization } from './transport';
import { JsonObject, RawJson, objectText } from './values';

/** Per field and form (literals, variables); 11 fields. */
const RUNS = 100;

let h: HostileApp;
beforeAll(async () => {
  h = await createHostileApp();
});
afterAll(async () => {
  h.slowest.print('GraphQL request');
  await h.t.close();
});

const FIELDS = schema.getQueryType()!.getFields();

/** Everything each field can answer, so that every resolver and scalar serializer runs. */
const SELECTIONS: Record<string, string> = {
  categories: '{ id name baseUnit unitCount }',
  category: '{ id name baseUnit unitCount units { id symbol } }',
  units: '{ id name symbol category aliases exact definition }',
  unit: '{ id name symbol category aliases exact definition }',
  convert: '{ input { value unit } result { value unit } category }',
  convertPost: '{ input { value unit } result { value unit } category }',
  convertCurrency:
    '{ input { value unit } result { value unit } rate { date source value fixed { code successor rate since kind source } resolved { requested publication carriedForward reason missingPublications } } }',
  batch:
    '{ succeeded failed results { __typename ... on BatchSuccess { kind data { __typename ... on Conversion { result { value unit } } ' +
    '... on CurrencyConversion { result { value unit } rate { date value } } } } ... on BatchFailure { kind error { code message status param requestId } } } }',
  rateSeries:
    '{ start end base group source symbols nextCursor complete entries { period start end publications rates partial { code publications } } }',
  rateSeriesLink: '{ url expiresAt format keyId }',
  sources: '{ id publisher lastPublication stale tables { id lastPublication } }',
  rates:
    '{ date base source amount rates resolved { requested publication carriedForward reason missingPublications } nextPublication { date expectedAt overdue missingPublications } }',
  latestRates:
    '{ date base source amount rates resolved { requested publication carriedForward reason missingPublications } nextPublication { date expectedAt overdue missingPublications } }',
  currencies: '{ code name numericCode minorUnits firstDate lastDate status successor { code successor rate since kind source } }',
  currency: '{ code name numericCode minorUnits firstDate lastDate status successor { code successor rate since kind source } }',
  health: '{ status version rates { date fetchedAt stale lastError } }',
  usage: '{ quota { limit used remaining reset } days { day delivered refusedQuota refusedRate } }',
};

const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/** The arguments whose type is an enum: their values are written bare when they can be. */
const ENUM_ARGS = new Set(['rounding', 'format']);

/** A generated value as a GraphQL literal; enum values (rounding, format) are written bare when they can be. */
function literal(value: unknown, enumLike = false): string {
  if (value instanceof RawJson) return value.text;
  if (value instanceof JsonObject) return `{${value.entries.map(([k, v]) => `${k}: ${literal(v, ENUM_ARGS.has(k))}`).join(', ')}}`;
  if (typeof value === 'string') return enumLike && NAME.test(value) ? value : JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => literal(v)).join(', ')}]`;
  if (typeof value === 'object' && value !== null) return literal(new JsonObject(Object.entries(value)));
  return String(value);
}

const WRONG_TYPES = [
  'String',
  'String!',
  'Int',
  'Int!',
  'Decimal',
  'Decimal!',
  'Date',
  'Rounding',
  '[String]',
  '[String!]',
  'Boolean',
  'Float',
  'ID',
  'BatchItemInput',
  '[BatchItemInput!]!',
];

interface GraphQLRequest {
  body: string;
  headers: Record<string, string>;
}

/**
 * One field with generated arguments, written as literals or passed as (raw JSON) variables of
 * declared, or wrong, types. One request in five is well formed throughout (valid arguments, their
 * declared types, the paying key): a field with many arguments would otherwise draw a request that
 * is answered only about once in twenty, and a run of 100 could hold none.
 */
function requestOf(field: string, form: 'literals' | 'variables', key: string, freeKey: string): fc.Arbitrary<GraphQLRequest> {
  const args = FIELDS[field]!.args;
  const names = args.map((a) => a.name);
  const declared = fc.tuple(
    ...args.map((a) =>
      fc.oneof({ weight: 8, arbitrary: fc.constant(String(a.type)) }, { weight: 1, arbitrary: fc.constantFrom(...WRONG_TYPES) }),
    ),
  );
  const aliases = fc.constantFrom(1, 1, 1, 2);
  const hostile = fc.record({ entries: fieldArgs(field, names, 'json'), declared, aliases, auth: authorization(key, freeKey) });
  const wellFormed = fc.record({
    entries: validArgs(field, names),
    declared: fc.constant(args.map((a) => String(a.type))),
    aliases,
    auth: fc.constant<string | undefined>(`Bearer ${key}`),
  });
  return fc.oneof({ weight: 4, arbitrary: hostile }, { weight: 1, arbitrary: wellFormed }).map(({ entries, declared, aliases, auth }) => {
    const passed =
      form === 'literals'
        ? entries.map(([name, value]) => `${name}: ${literal(value, ENUM_ARGS.has(name))}`)
        : names.map((name) => `${name}: $${name}`);
    const call = `${field}${passed.length > 0 ? `(${passed.join(', ')})` : ''} ${SELECTIONS[field]}`;
    const selection = Array.from({ length: aliases }, (_, i) => (aliases > 1 ? `a${i}: ${call}` : call)).join(' ');
    const variables = form === 'variables' && names.length > 0 ? `(${names.map((name, i) => `$${name}: ${declared[i]}`).join(', ')})` : '';
    const query = `query Hostile${variables} { ${selection} }`;
    const body = `{"query":${JSON.stringify(query)},"variables":${form === 'variables' ? objectText(entries) : '{}'}}`;
    return { body, headers: { 'content-type': 'application/json', ...(auth === undefined ? {} : { authorization: auth }) } };
  });
}

describe('the GraphQL Query fields under hostile input', () => {
  it('are all known here, with a selection and valid arguments', () => {
    expect(Object.keys(SELECTIONS).sort()).toEqual(Object.keys(FIELDS).sort());
    for (const field of Object.keys(FIELDS)) expect(VALID_ARGS[field], field).toBeDefined();
  });

  describe.each(
    Object.keys(SELECTIONS).flatMap(
      (field) =>
        [
          [field, 'literals'],
          [field, 'variables'],
        ] as const,
    ),
  )('%s with %s', (field, form) => {
    it('answer below 500, every error with a contract code and its status, numbers well formed, in time', async () => {
      let answered = 0;
      await fc.assert(
        fc.asyncProperty(requestOf(field, form, h.key, h.freeKey), async (request) => {
          const input = `${show(request.body)} headers ${show(request.headers)}`;
          const res = await h.slowest.time(
            () => input,
            () => postGraphQL(h.t, request.body, request.headers),
          );
          expectGraphQLInvariants(res.status, res.body, input);
          if (res.body.errors === undefined) answered++;
        }),
        { numRuns: RUNS },
      );
      expect(answered, 'the property was not vacuous: some requests were answered').toBeGreaterThan(0);
    });
  });
});

describe('after the hostile requests', () => {
  it('GraphQL still converts', async () => {
    const { body } = await h.t.graphql('{ convert(value: "12.5", from: "in", to: "cm") { result { value } } }', {}, h.key);
    expect(body).toEqual({ data: { convert: { result: { value: '31.75' } } }, extensions: expect.anything() });
  });
});
