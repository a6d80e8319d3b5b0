import { GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLScalarType, GraphQLSchema, GraphQLString } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errors';
import { errorBody } from '../../src/graphql/error-body';
import { schema } from '../../src/graphql';
import { jsonString, restOmittedWhenNull, selectAll, selectAllJson } from '../../src/graphql/serialize';
import { createNames } from '../../src/services/names';

/**
 * REST's direct execution writes answers with selectAllJson: it must give JSON.stringify(selectAll(...))
 * byte for byte, less the members the schema declares REST leaves out when null.
 */
const query = schema.getQueryType()!.getFields();
const omitted = restOmittedWhenNull(schema);
// What a resolver reads of the request: a batch item's error names the REST routes, as REST's answers do.
const context = { requestContext: { surface: 'rest' } };
const same = (field: string, value: unknown) => {
  const type = query[field]!.type;
  const text = selectAllJson(schema, type, value, context);
  expect(text).toBe(
    JSON.stringify(selectAll(schema, type, value, context), (key, member: unknown) =>
      member === null && omitted.has(key) ? undefined : member,
    ),
  );
  return text;
};

const unit = { input: { value: '12.5', unit: 'inch' }, result: { value: '31.75', unit: 'centimeter' }, category: 'length' };
const currency = {
  input: { value: '5', unit: 'USD' },
  result: { value: '3.95', unit: 'GBP' },
  rate: { date: '2024-03-28', source: 'ECB', value: '0.79', fixed: [] },
};
const incompatible = new ApiError('INCOMPATIBLE_UNITS', 'Cannot convert length (meter) to mass (kilogram). "quoted" \\ \u2028', {
  param: 'to',
});
const failure = errorBody(incompatible, 'req-1');

describe('selectAllJson', () => {
  it('a conversion, and null', () => {
    // Every field is selected: a plain conversion's exchangeRate is null, and so is each quantity's
    // text without lang; REST leaves both out (restOmitsNull).
    expect(JSON.parse(same('convert', unit)!)).toEqual(unit);
    const resolved = {
      requested: '2024-03-30',
      publication: '2024-03-28',
      carriedForward: true,
      reason: 'weekend',
      missingPublications: null,
    };
    const priced = {
      ...unit,
      rate: { date: '2024-03-28', source: 'ecb', value: '1.0811', rates: { EUR: '1', USD: '1.0811' }, fixed: [], resolved },
    };
    expect(JSON.parse(same('convert', priced)!)).toEqual({ ...unit, exchangeRate: priced.rate });
    expect(same('convert', null)).toBe('null');
  });

  it('a batch of successes (unit and currency) and failures, with and without param, in order', () => {
    const outcome = {
      results: [
        { ok: true, kind: 'unit', data: unit },
        { ok: false, kind: 'unit', error: incompatible, requestId: 'req-1' },
        { ok: true, kind: 'currency', data: currency },
        { ok: false, kind: 'currency', error: new ApiError('QUOTA_EXCEEDED', 'Quota.'), requestId: 'r' },
      ],
      succeeded: 2,
      failed: 2,
    };
    const text = same('batch', outcome)!;
    expect(JSON.parse(text).results[1]).toEqual({ kind: 'unit', error: failure });
    expect(JSON.parse(text).results.map((r: { kind: string }) => r.kind)).toEqual(['unit', 'unit', 'currency', 'currency']);
    expect(same('batch', { results: [], succeeded: 0, failed: 0 })).toBe('{"results":[],"succeeded":0,"failed":0}');
  });

  it('lists of objects (categories and units)', () => {
    same('categories', [{ id: 'length', name: 'Length', baseUnit: 'meter', units: [], names: createNames().of('de') }]);
  });
});

describe('jsonString is JSON.stringify of a string', () => {
  const long = 'a'.repeat(64);
  it.each([
    '',
    'inch',
    '-31.75',
    'length',
    long,
    `${long}b`,
    `${long}"`,
    'say "hi"',
    'back\\slash',
    'tab\there',
    'nul\u0000',
    'unit\u001f',
    'del\u007f',
    'line\u2028sep',
    'é and ß',
    '\ud83d\ude00 paired',
    'lone \ud83d',
    'lone \ude00 low',
    '\udfff',
    'ok \ud7ff \ue000',
  ])('%j', (text) => {
    expect(jsonString(text)).toBe(JSON.stringify(text));
  });

  it('every UTF-16 code unit alone and between letters', () => {
    for (let code = 0; code <= 0xffff; code += 1) {
      const c = String.fromCharCode(code);
      expect(jsonString(c)).toBe(JSON.stringify(c));
      expect(jsonString(`a${c}b`)).toBe(JSON.stringify(`a${c}b`));
    }
  });
});

describe('selectAllJson leaves out what JSON.stringify leaves out', () => {
  // A scalar whose serialize gives undefined for some values: left out of an object (key and all), null in a list.
  const Maybe = new GraphQLScalarType({ name: 'Maybe', serialize: (value) => (value === 'skip' ? undefined : value) });
  const Row = new GraphQLObjectType({
    name: 'Row',
    fields: { a: { type: Maybe }, b: { type: GraphQLString }, c: { type: Maybe }, list: { type: new GraphQLList(Maybe) } },
  });
  const Only = new GraphQLObjectType({ name: 'Only', fields: { a: { type: Maybe } } });
  const own = new GraphQLSchema({
    query: new GraphQLObjectType({
      name: 'Query',
      fields: { rows: { type: new GraphQLNonNull(new GraphQLList(Row)) }, only: { type: Only } },
    }),
  });
  const sameAs = (field: string, value: unknown) => {
    const type = own.getQueryType()!.getFields()[field]!.type;
    const text = selectAllJson(own, type, value, context);
    expect(text).toBe(JSON.stringify(selectAll(own, type, value, context)));
    return text;
  };

  it.each([
    [{ a: 'skip', b: 'x', c: 'y', list: ['skip', 'z'] }, '[{"b":"x","c":"y","list":[null,"z"]}]'],
    [{ a: 'w', b: 'x', c: 'skip', list: [] }, '[{"a":"w","b":"x","list":[]}]'],
    [{ a: 'skip', b: null, c: 'skip', list: null }, '[{"b":null,"list":null}]'],
    [{ a: 1, b: 'q"uote', c: true, list: ['skip'] }, '[{"a":1,"b":"q\\"uote","c":true,"list":[null]}]'],
  ])('%j', (row, json) => {
    expect(sameAs('rows', [row])).toBe(json);
  });

  it('an object whose every member is left out is {}', () => {
    expect(sameAs('only', { a: 'skip' })).toBe('{}');
    expect(sameAs('only', { a: 'kept' })).toBe('{"a":"kept"}');
  });
});
