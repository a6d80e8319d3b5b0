/** Hostile transport: Authorization headers, content types, and broken JSON bodies. */
import fc from 'fast-check';
import { MEGABYTE_OF_DIGITS, nested } from './values';

/** Header values as fetch allows them (Latin-1, no CR, LF or NUL). */
export const headerSafe = (text: string): string => text.replace(/[^\t\x20-\x7e\x80-\xff]/g, '');

/** Authorization headers: the valid key mostly, and garbage, huge values and other schemes. */
export function authorization(key: string, freeKey: string): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 24, arbitrary: fc.constant(`Bearer ${key}`) },
    { weight: 1, arbitrary: fc.constantFrom(`Bearer ${freeKey}`, undefined) },
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        `bearer ${key}`,
        `BEARER ${key}`,
        `Bearer  ${key}`,
        `Bearer ${key} extra`,
        `Bearer\t${key}`,
        `Bearer ${key.slice(0, -1)}`,
        `Bearer ${key}x`,
        `Bearer ${key.replace('msr_test_', 'msr_live_')}`,
        `Bearer msr_test_${'A'.repeat(49)}`,
        'Basic dXNlcjpwYXNz',
        'Digest username="a"',
        'Bearer',
        'Bearer ',
        `Token ${key}`,
        key,
        `Bearer ${'x'.repeat(100_000)}`,
        `Bearer ${MEGABYTE_OF_DIGITS}`,
      ),
    },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 80 }).map(headerSafe) },
  );
}

/** Content types for POST bodies: JSON mostly, then near misses, other types and none at all. */
export const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 20, arbitrary: fc.constant('application/json') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/json;charset=latin1',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/graphql',
      'application/jsonx',
      'application/json-patch+json',
      '*/*',
      'json',
      '',
      'text/html; charset=utf-8',
      'application/json, text/plain',
      undefined,
    ),
  },
);

/** Ways to break a JSON text: truncate it, add garbage or a BOM, wrap it, pad it past a body limit. */
export type Damage = ['none'] | ['truncate', number] | ['append', string] | ['bom'] | ['replace', string] | ['wrap'] | ['pad', number];
export const damage: fc.Arbitrary<Damage> = fc.oneof(
  { weight: 30, arbitrary: fc.constant<Damage>(['none']) },
  { weight: 1, arbitrary: fc.nat().map<Damage>((n) => ['truncate', n]) },
  { weight: 1, arbitrary: fc.constantFrom(' x', '}', ',', ']', '\u0000', '{}', ' // comment', '\n\n').map<Damage>((s) => ['append', s]) },
  { weight: 1, arbitrary: fc.constant<Damage>(['bom']) },
  { weight: 1, arbitrary: fc.constant<Damage>(['wrap']) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('', '   ', 'null', '"1"', '1', 'true', '[]', "{'value':'1'}", '{"value":NaN}', '{"value":"1",}', nested(50_000).text)
      .map<Damage>((s) => ['replace', s]),
  },
  { weight: 1, arbitrary: fc.constantFrom(64 * 1024, 1024 * 1024).map<Damage>((n) => ['pad', n]) },
);

export function applyDamage(text: string, [kind, arg]: Damage): string {
  switch (kind) {
    case 'none':
      return text;
    case 'truncate':
      return text.slice(0, arg % (text.length + 1));
    case 'append':
      return text + arg;
    case 'bom':
      return `\uFEFF${text}`;
    case 'replace':
      return arg;
    case 'wrap':
      return `[${text}]`;
    case 'pad':
      return text.startsWith('{') && text.length > 2 ? `${text.slice(0, -1)},"pad":"${'x'.repeat(arg)}"}` : text + ' '.repeat(arg);
  }
}
