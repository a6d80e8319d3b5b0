import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errors';
import { errorBody } from '../../src/graphql/error-body';
import { schema } from '../../src/graphql';
import { jsonString, selectAll, selectAllJson } from '../../src/graphql/serialize';

/** The fast lane writes answers with selectAllJson: it must give JSON.stringify(selectAll(...)) byte for byte. */
const query = schema.getQueryType()!.getFields();
const context = {};
const same = (field: string, value: unknown) => {
  const type = query[field]!.type;
  const text = selectAllJson(schema, type, value, context);
  expect(text).toBe(JSON.stringify(selectAll(schema, type, value, context)));
  return text;
};

const unit = { input: { value: '12.5', unit: 'inch' }, result: { value: '31.75', unit: 'centimeter' }, category: 'length' };
const currency = { input: { value: '5', unit: 'USD' }, result: { value: '3.95', unit: 'GBP' }, rate: { date: '2024-03-28', source: 'ECB', value: '0.79' } };
const incompatible = new ApiError('INCOMPATIBLE_UNITS', 'Cannot convert length (meter) to mass (kilogram). "quoted" \\ \u2028', { param: 'to' });
const failure = errorBody(incompatible, 'req-1');

describe('selectAllJson', () => {
  it('a conversion, and null', () => {
    expect(JSON.parse(same('convert', unit)!)).toEqual(unit);
    expect(same('convert', null)).toBe('null');
  });

  it('a batch of successes (unit and currency) and failures, with and without param, in order', () => {
    const outcome = {
      results: [{ ok: true, data: unit }, { ok: false, error: incompatible, requestId: 'req-1' }, { ok: true, data: currency }, { ok: false, error: new ApiError('QUOTA_EXCEEDED', 'Quota.'), requestId: 'r' }],
      succeeded: 2,
      failed: 2,
    };
    const text = same('batch', outcome)!;
    expect(JSON.parse(text).results[1]).toEqual({ error: failure });
    expect(same('batch', { results: [], succeeded: 0, failed: 0 })).toBe('{"results":[],"succeeded":0,"failed":0}');
  });

  it('lists of objects (categories and units)', () => {
    same('categories', [{ id: 'length', name: 'Length', baseUnit: 'meter', units: [] }]);
  });
});

describe('jsonString is JSON.stringify of a string', () => {
  const long = 'a'.repeat(64);
  it.each([
    '', 'inch', '-31.75', 'length', long, `${long}b`, `${long}"`, 'say "hi"', 'back\\slash', 'tab\there', 'nul\u0000', 'unit\u001f', 'del\u007f',
    'line\u2028sep', 'é and ß', '\ud83d\ude00 paired', 'lone \ud83d', 'lone \ude00 low', '\udfff', 'ok \ud7ff \ue000',
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
