/**
 * Hostile values: strings no field should choke on, JSON of every type, and JSON written by hand
 * (numbers JSON.stringify cannot produce, repeated and `__proto__` keys, deep nesting).
 */
import fc from 'fast-check';

/** One megabyte of digits, built once and reused wherever a string goes. */
export const MEGABYTE_OF_DIGITS = '9'.repeat(1_000_000);

export const NUMBER_TRICKS = [
  '1e999999999',
  '-1e-999999999',
  '1E5',
  '0.1e1',
  '0x1F',
  '0X1f',
  '0b101',
  '0o17',
  '017',
  '1_000',
  '1,000',
  '1 000',
  '1\u00A0000',
  'NaN',
  'nan',
  'Infinity',
  '-Infinity',
  '∞',
  '-0',
  '-0.000',
  '+1',
  '.5',
  '5.',
  '-.5',
  '--1',
  '1..2',
  '1.2.3',
  '١٢٣',
  '١٢٣.٤',
  '１２',
  '１２.５',
  '𝟙𝟚',
  '½',
  '1/3',
  '\u200B1',
  ' 1',
  '1 ',
  '\t1',
  '1\n',
  '\u00001',
  '9'.repeat(41),
  `1.${'1'.repeat(41)}`,
  `0.${'0'.repeat(39)}1`,
  `-${'9'.repeat(40)}.${'9'.repeat(40)}`,
  MEGABYTE_OF_DIGITS,
];
const CONTROL = ['', ' ', '\t', '\r\n', '\u0000', '\u0007', '\u001b[31m', '\u202E', '\uFEFF', '\u2028', '\uD800', '\uDFFF', '\u00A0'];
export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];
const PATH_TRICKS = ['.', '..', '%', '%25', '%2F', '%2e%2e', 'a/b', '?', '#', '&', '=', '%00', '%E0%A4%A', '%ZZ', 'x'.repeat(10_000)];

/** Strings no field should choke on. */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NUMBER_TRICKS, ...CONTROL, ...PROTOTYPE_KEYS, ...PATH_TRICKS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
);

/** A JSON fragment written as is: numbers JSON.stringify cannot produce, deep nesting, prototype keys. */
export class RawJson {
  constructor(readonly text: string) {}
  toJSON(): string {
    return `RawJson(${this.text.slice(0, 60)})`; // how fast-check and messages show it
  }
}
export const nested = (depth: number) => new RawJson('['.repeat(depth) + ']'.repeat(depth));
const RAW_FRAGMENTS = [
  '1e999999999',
  '-1e999999999',
  '1e-999999999',
  '-0',
  '2.0',
  '1E1',
  '123456789012345678901234567890',
  '0.1e1',
  '{"__proto__":{"polluted":1}}',
  '{"constructor":{"prototype":{"polluted":1}}}',
  '["1"]',
  '{"value":"1"}',
].map((text) => new RawJson(text));

/** Any JSON value, of every type (the wrong one, mostly). */
export const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom<unknown>(
      null,
      true,
      false,
      0,
      1,
      -1,
      2.5,
      1e10,
      1e308,
      2 ** 31,
      -(2 ** 31) - 1,
      [],
      {},
      [[[]]],
      '',
      ...RAW_FRAGMENTS,
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(nested(100), nested(30_000)) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: hostileText },
);

/** An object given as entries, so that repeated and `__proto__` keys can be written (see objectText). */
export class JsonObject {
  constructor(readonly entries: readonly (readonly [string, unknown])[]) {}
  toJSON(): Record<string, unknown> {
    return Object.fromEntries(this.entries); // how fast-check and messages show it
  }
}

/** `JSON.stringify`, except that RawJson is written as is and JsonObject from its entries. */
export function jsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (value instanceof JsonObject) return objectText(value.entries);
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (typeof value === 'object' && value !== null) return objectText(Object.entries(value));
  return JSON.stringify(value) ?? 'null';
}

/** An object from entries, written by hand: duplicated and `__proto__` keys survive as own properties of JSON.parse. */
export function objectText(entries: readonly (readonly [string, unknown])[]): string {
  const present = entries.filter(([, value]) => value !== undefined);
  return `{${present.map(([key, value]) => `${JSON.stringify(key)}:${jsonText(value)}`).join(',')}}`;
}
