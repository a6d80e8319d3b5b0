import fc from 'fast-check';
import { coerceInputValue, getNamedType, isEnumType, isLeafType, isNonNullType, isScalarType, type GraphQLArgument } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errors';
import { schema } from '../../src/graphql';
import { checkRestInput, describeCoercionError, enumValuesAt, queryParams } from '../../src/http/rest/rest-input';
import type { RestRoute } from '../../src/http/routes';
import { anyJson, hostileText, PROTOTYPE_KEYS } from '../hostile/values';

/** Every scalar or enum argument of a Query field (what checkRestInput checks without coerceInputValue). */
const LEAF_ARGS = Object.values(schema.getQueryType()!.getFields()).flatMap((field) =>
  field.args.filter((arg) => isLeafType(isNonNullType(arg.type) ? arg.type.ofType : arg.type)).map((arg) => ({ field: field.name, arg })),
);
const POST = { method: 'POST', path: '/v1/x' } as RestRoute;

/** The answer checkRestInput gave before leaf arguments had their own path: coerceInputValue's. */
function reference(arg: GraphQLArgument, value: unknown) {
  try {
    return {
      value: coerceInputValue(value, arg.type, (_path, _invalid, error) => {
        throw new ApiError('INVALID_REQUEST', describeCoercionError(arg.name, error.message, enumValuesAt(arg.type, [])), {
          param: arg.name,
        });
      }),
    };
  } catch (error) {
    return { error: { message: (error as ApiError).message, param: (error as ApiError).param } };
  }
}

function actual(arg: GraphQLArgument, value: unknown) {
  try {
    return { value: checkRestInput(POST, [arg], {}, new URLSearchParams(), { [arg.name]: value })[arg.name] };
  } catch (error) {
    return { error: { message: (error as ApiError).message, param: (error as ApiError).param } };
  }
}

describe('checkRestInput on scalar and enum arguments', () => {
  it('covers scalars and an enum of the schema', () => {
    expect(LEAF_ARGS.some(({ arg }) => isEnumType(getNamedType(arg.type)))).toBe(true);
    expect(
      LEAF_ARGS.some(
        ({ arg }) =>
          isScalarType(getNamedType(arg.type)) && !['Int', 'String', 'Boolean', 'Float', 'ID'].includes(getNamedType(arg.type).name),
      ),
    ).toBe(true);
  });

  it.each(LEAF_ARGS.map(({ field, arg }) => [`${field}(${arg.name}: ${String(arg.type)})`, arg] as const))(
    '%s: the same value or error as coerceInputValue',
    (_name, arg) => {
      const value = fc.oneof(anyJson, hostileText).filter((v) => v !== null && v !== undefined);
      fc.assert(
        fc.property(value, (v) => {
          expect(actual(arg, v)).toEqual(reference(arg, v));
        }),
        { numRuns: 300 },
      );
    },
  );
});

/** The answer checkRestInput gave for a list or input object argument before its compiled check. */
function referenceObject(arg: GraphQLArgument, value: unknown) {
  // checkRestInput's own rule before any coercion (unchanged): a JSON body sends the array it documents.
  if (!Array.isArray(value)) return { error: { message: `'${arg.name}' must be an array.`, param: arg.name } };
  try {
    // Every problem of coerceInputValue; an unknown field (it also explains a missing one) is the one reported, else the first.
    const problems: ApiError[] = [];
    const coerced: unknown = coerceInputValue(value, arg.type, (path, _invalid, error) => {
      const param = path.reduce<string>((acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : `${acc}.${key}`), arg.name);
      problems.push(new ApiError('INVALID_REQUEST', describeCoercionError(param, error.message, enumValuesAt(arg.type, path)), { param }));
    });
    if (problems.length > 0) throw problems.find((p) => p.message.includes('is invalid: unknown field')) ?? problems[0]!;
    return { value: coerced };
  } catch (error) {
    return { error: { message: (error as ApiError).message, param: (error as ApiError).param } };
  }
}

describe('checkRestInput on batch items (a list of input objects)', () => {
  const items = schema
    .getQueryType()!
    .getFields()
    .batch!.args.find((arg) => arg.name === 'items')!;
  const text = fc.oneof(fc.constantFrom('inch', 'centimeter', 'USD', 'EUR', '1.5', '2024-01-31', ''), hostileText);
  const fieldValue = fc.oneof(
    { weight: 6, arbitrary: text },
    { weight: 2, arbitrary: fc.integer({ min: -5, max: 50 }) },
    { weight: 2, arbitrary: fc.constantFrom('HALF_UP', 'DOWN', 'half_up', 'HALF_UPP', null, 2 ** 31, 1.5, true) },
    { weight: 1, arbitrary: anyJson },
  );
  const fieldName = fc.oneof(
    { weight: 10, arbitrary: fc.constantFrom('from', 'to', 'value', 'date', 'decimals', 'rounding') },
    { weight: 1, arbitrary: fc.constantFrom('valu', 'From', 'extra', ...PROTOTYPE_KEYS) },
  );
  const valid = fc.record(
    {
      from: fc.constantFrom('inch', 'USD'),
      to: fc.constantFrom('centimeter', 'EUR'),
      value: fc.constantFrom('1', '2.5', '-0.001'),
      date: fc.constantFrom('2024-01-31', null),
      decimals: fc.integer({ min: 0, max: 40 }),
      rounding: fc.constantFrom('HALF_UP', 'HALF_EVEN', 'FLOOR', null),
    },
    { requiredKeys: ['from', 'to', 'value'] },
  );
  const hostile = fc.dictionary(fieldName, fieldValue, { maxKeys: 8 }).map((entries) => JSON.parse(JSON.stringify(entries)) as unknown);
  // A valid item with one field changed, added or removed: its only problem is the one made here.
  const spoiled = fc.tuple(valid, fieldName, fc.option(fieldValue)).map(([good, name, changed]) => {
    const copy: Record<string, unknown> = { ...good };
    if (changed === null) delete copy[name];
    else Object.defineProperty(copy, name, { value: changed, enumerable: true, writable: true, configurable: true });
    return copy;
  });
  const item = fc.oneof(
    { weight: 5, arbitrary: valid },
    { weight: 3, arbitrary: spoiled },
    { weight: 2, arbitrary: hostile },
    { weight: 1, arbitrary: anyJson },
  );
  const body = fc.oneof(
    { weight: 3, arbitrary: fc.array(valid, { maxLength: 30 }) },
    { weight: 6, arbitrary: fc.array(item, { maxLength: 30 }) },
    { weight: 1, arbitrary: anyJson.filter((v) => v !== null && v !== undefined) },
  );

  it('gives the same value or the same first error as coerceInputValue', () => {
    fc.assert(
      fc.property(body, (value) => {
        expect(actual(items, value)).toEqual(referenceObject(items, value));
      }),
      { numRuns: 1500 },
    );
  });

  it('checks valid items without coerceInputValue, and still reports its exact errors', () => {
    const good = [
      { from: 'inch', to: 'centimeter', value: '1', rounding: 'HALF_UP', decimals: 2 },
      { from: 'USD', to: 'EUR', value: '2', date: null },
    ];
    expect(actual(items, good)).toEqual({ value: good });
    expect(actual(items, [...good, { from: 'inch', to: 'meter' }])).toEqual({
      error: { message: '\'items[2]\' is invalid: Field "value" of required type "String!" was not provided.', param: 'items[2]' },
    });
    // A misspelt field is named, with the nearest field, before the field it leaves missing.
    expect(actual(items, [...good, { form: 'inch', to: 'meter', value: '1' }])).toEqual({
      error: { message: "'items[2]' is invalid: unknown field 'form' (did you mean from?).", param: 'items[2]' },
    });
    expect(actual(items, [{ from: 'inch', to: 'meter', value: '1', rounding: 'half_up' }])).toEqual(
      referenceObject(items, [{ from: 'inch', to: 'meter', value: '1', rounding: 'half_up' }]),
    );
    expect(actual(items, [{ from: 'inch', to: 'meter', value: '1', valu: '1' }])).toEqual({
      error: { message: "'items[0]' is invalid: unknown field 'valu' (did you mean value?).", param: 'items[0]' },
    });
    expect(actual(items, [null])).toEqual({
      error: { message: '\'items[0]\' is invalid: Expected non-nullable type "BatchItemInput!" not to be null.', param: 'items[0]' },
    });
  });
});

describe('queryParams', () => {
  /** What the URL standard's parser gives: every name in order (repeats kept) and each name's values. */
  const reading = (params: { keys(): IterableIterator<string>; getAll(name: string): string[] }) => {
    const names = [...params.keys()];
    return { names, values: names.map((name) => params.getAll(name)) };
  };
  const expectLikeUrlSearchParams = (query: string) => {
    expect(reading(queryParams(query)), query).toEqual(reading(new URLSearchParams(query)));
  };

  it.each([
    '',
    'value=12.5&from=inch&to=centimeter',
    'a',
    'a=',
    '=b',
    'a=b=c',
    'a&&b',
    '&a=1&',
    'a=1&a=2&b',
    'symbols=USD,GBP',
    'a=%41',
    'a=1+2',
    '?a=1',
    'a=%zz',
    'a=%C3',
    'é=1',
    'a=b#c',
  ])('reads %j as URLSearchParams does', expectLikeUrlSearchParams);

  it('reads any query as URLSearchParams does (plain ones without it)', () => {
    const char = fc.constantFrom(...'aZ09.-_~=&:,?%+#é /'.split(''), '%41', '%2', '%C3%A9', '%FF');
    fc.assert(
      fc.property(
        fc.array(char, { maxLength: 30 }).map((chars) => chars.join('')),
        expectLikeUrlSearchParams,
      ),
      { numRuns: 3000 },
    );
  });
});

describe('checkRestInput on a GET query string', () => {
  const convert = schema.getQueryType()!.getFields()['convert']!;
  const GET = { method: 'GET', path: '/v1/convert' } as RestRoute;
  const outcome = (
    search: { keys(): IterableIterator<string>; getAll(name: string): string[] },
    pathParams: Record<string, string> = {},
  ) => {
    try {
      return { value: checkRestInput(GET, convert.args, pathParams, search, undefined) };
    } catch (error) {
      return { error: { message: (error as ApiError).message, param: (error as ApiError).param } };
    }
  };

  it.each([
    ['value=12.5&from=inch&to=centimeter', { value: '12.5', from: 'inch', to: 'centimeter' }],
    [
      'value=12.5&from=inch&to=centimeter&decimals=2&rounding=DOWN',
      { value: '12.5', from: 'inch', to: 'centimeter', decimals: 2, rounding: 'DOWN' },
    ],
  ])('reads %j', (query, expected) => {
    expect(outcome(queryParams(query))).toEqual({ value: expected });
  });

  it.each([
    ['value=1&from=m&to=ft&nope=1', "Unknown query parameter 'nope'.", 'nope'],
    ['value=1&value=2&from=m&to=ft', "Query parameter 'value' is given more than once.", 'value'],
    // The first name met decides: the repeated value before the unknown parameter, and the other way round.
    ['value=1&nope=1&value=2', "Query parameter 'value' is given more than once.", 'value'],
    ['nope=1&value=1&value=2', "Unknown query parameter 'nope'.", 'nope'],
    ['value=&from=m&to=ft', "'value' is empty: give it a value or leave it out.", 'value'],
    ['value=1&from=m&to=ft&decimals=x', "'decimals' must be a whole number.", 'decimals'],
    ['value=1&from=m', "'to' is required.", 'to'],
  ])('refuses %j', (query, message, param) => {
    expect(outcome(queryParams(query))).toEqual({ error: { message, param } });
  });

  it('answers a plain query exactly as it answers the same query read by URLSearchParams (fast-check)', () => {
    const name = fc.constantFrom('value', 'from', 'to', 'decimals', 'rounding', 'nope', 'Value', 'constructor');
    const value = fc.constantFrom('', '1', '12.5', '-0.5', 'inch', 'cm', 'm', 'DOWN', 'up', '2', '41', 'x');
    const query = fc
      .array(fc.tuple(name, fc.option(value, { nil: undefined })), { maxLength: 8 })
      .map((pairs) => pairs.map(([n, v]) => (v === undefined ? n : `${n}=${v}`)).join('&'));
    fc.assert(
      fc.property(query, fc.boolean(), (text, withPath) => {
        const pathParams: Record<string, string> = withPath ? { from: 'inch' } : {};
        expect(outcome(queryParams(text), pathParams), text).toEqual(outcome(new URLSearchParams(text), pathParams));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('checkRestInput on a list of strings in a query string: a comma list', () => {
  const rateSeries = schema.getQueryType()!.getFields()['rateSeries']!;
  const GET = { method: 'GET', path: '/v1/currency/rates/series' } as RestRoute;
  const outcome = (query: string) => {
    try {
      return { value: checkRestInput(GET, rateSeries.args, {}, queryParams(query), undefined)['symbols'] };
    } catch (error) {
      return { error: { message: (error as ApiError).message, param: (error as ApiError).param } };
    }
  };

  it.each([
    ['symbols=USD', ['USD']],
    ['symbols=usd,JPY', ['usd', 'JPY']],
    ['symbols=%20USD%20,%20JPY', ['USD', 'JPY']],
    // Shapes are the field's to judge (INVALID_REQUEST from the service, as for a GraphQL list).
    ['symbols=USD,,JPY', ['USD', '', 'JPY']],
    ['symbols=,', ['', '']],
    [`symbols=${'USD,'.repeat(99)}USD`, Array(100).fill('USD')],
  ])('reads %j as %j', (query, expected) => {
    expect(outcome(`start=2024-01-01&end=2024-01-31&${query}`)).toEqual({ value: expected });
  });

  it.each([
    ['symbols=', "'symbols' is empty: give it a value or leave it out."],
    [`symbols=${'USD,'.repeat(100)}USD`, "'symbols' must be a comma-separated list of at most 400 characters."],
  ])('refuses %j', (query, message) => {
    expect(outcome(`start=2024-01-01&end=2024-01-31&${query}`)).toEqual({ error: { message, param: 'symbols' } });
  });
});
