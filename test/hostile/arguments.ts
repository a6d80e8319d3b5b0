/**
 * The arguments of every Query field (and so of every REST route), as fast-check arbitraries:
 * valid ones, each now and then replaced by a hostile value or left out, so that generated
 * requests also get past validation and reach the domain.
 */
import fc from 'fast-check';
import { ECB_CURRENCY_CODES } from '../../src/domain/currency/codes';
import { ROUNDING_MODES } from '../../src/domain/decimal';
import { ALIASES, CATEGORIES, UNITS } from '../../src/domain/units';
import { decimalValue, sameCategoryPair } from '../domain/units/arbitraries';
import { JsonObject, NUMBER_TRICKS, PROTOTYPE_KEYS, RawJson, anyJson, hostileText } from './values';

const UNIT_NAMES = [...UNITS.flatMap((u) => [u.id, u.symbol, u.id.toUpperCase()]), ...Object.values(ALIASES).flat().slice(0, 40)];
const CURRENCIES = [
  'USD',
  'usd',
  'JPY',
  'jpy',
  'EUR',
  'eur',
  'GBP',
  'RUB',
  'BGN',
  'XYZ',
  'US',
  'USDD',
  'U$D',
  '€',
  '$',
  ...[...ECB_CURRENCY_CODES].slice(0, 8),
];
const DATES = [
  '2024-03-27',
  '2024-03-28',
  '2024-03-29',
  '2024-04-02',
  '2024-04-03',
  '2024-04-04',
  '1999-01-04',
  '1999-01-03',
  '2026-02-31',
  '0000-00-00',
  '0000-01-01',
  '99999-01-01',
  '9999-12-31',
  '2024-02-29',
  '2023-02-29',
  '2024-3-28',
  '20240328',
  '2024-03-28T00:00:00Z',
];

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const randomDate = fc
  .tuple(fc.integer({ min: 0, max: 99_999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }))
  .map(([y, m, d]) => `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`);
const currency = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...CURRENCIES) }, { weight: 1, arbitrary: hostileText });

/** Valid and hostile text per argument name, as a query string or a path segment carries it. */
const TEXT: Record<string, fc.Arbitrary<string>> = {
  value: fc.oneof(decimalValue, fc.constantFrom(...NUMBER_TRICKS)),
  from: fc.oneof(fc.constantFrom(...UNIT_NAMES), currency, hostileText),
  to: fc.oneof(fc.constantFrom(...UNIT_NAMES), currency, hostileText),
  id: fc.oneof(fc.constantFrom(...UNIT_NAMES, ...CATEGORIES.map((c) => c.id)), hostileText),
  category: fc.oneof(fc.constantFrom(...CATEGORIES.map((c) => c.id), 'LENGTH', 'Length '), hostileText),
  decimals: fc.oneof(
    fc.integer({ min: 0, max: 40 }).map(String),
    fc.constantFrom('-1', '41', '1e10', '2.5', '2.0', 'true', '-0', '00002', '0x2', '٢', '+2', ' 2', '99999999999', '2147483648', ''),
  ),
  rounding: fc.oneof(
    fc.constantFrom(...ROUNDING_MODES),
    fc.constantFrom('half_up', 'SIDEWAYS', 'HALF_UP ', 'UP\u0000', ...PROTOTYPE_KEYS),
    hostileText,
  ),
  date: fc.oneof(fc.constantFrom(...DATES), randomDate, hostileText),
  symbols: fc.oneof(
    fc.array(currency, { minLength: 1, maxLength: 4 }).map((codes) => codes.join(',')),
    fc.constantFrom(',,', ' USD', 'USD, GBP', 'USD,'.repeat(120)),
  ),
  start: fc.oneof(fc.constantFrom(...DATES), randomDate, hostileText),
  end: fc.oneof(fc.constantFrom(...DATES), randomDate, hostileText),
  base: currency,
  group: fc.oneof(
    fc.constantFrom('day', 'week', 'month', 'year', 'MONTH', 'Week', 'fortnight', 'month ', 'dayy', ...PROTOTYPE_KEYS),
    hostileText,
  ),
  cursor: fc.oneof(fc.constantFrom('MXwyMDI0LTA0LTAxfDIwMjQtMDMtMDF8MjAyNC0wNC0zMHxkYXk', 'MXwyMDI0', 'bm9wZQ', '='), hostileText),
  code: currency,
  // Mostly a source of the document's enum, so that a route's other inputs still reach the server.
  source: fc.oneof(
    { arbitrary: fc.constantFrom('ecb', 'nbp', 'boc', 'imf'), weight: 8 },
    { arbitrary: fc.constantFrom('ECB', 'fed', 'ecb ', '', ...PROTOTYPE_KEYS), weight: 1 },
    { arbitrary: hostileText, weight: 1 },
  ),
  amount: fc.oneof(decimalValue, fc.constantFrom(...NUMBER_TRICKS)),
  format: fc.oneof(fc.constantFrom('csv', 'ndjson', 'CSV', 'json', 'xlsx', 'csv ', ...PROTOTYPE_KEYS), hostileText),
  expiresIn: fc.oneof(
    fc.integer({ min: 60, max: 604_800 }).map(String),
    fc.constantFrom('59', '604801', '0', '-1', '1e5', '86400.5', '', '2147483648'),
  ),
};

/** Hostile text for an argument (or any unknown name). */
export function argText(name: string): fc.Arbitrary<string> {
  return TEXT[name] ?? hostileText;
}

/** The same value as JSON carries it: text as strings, plus numbers, wrong types and raw fragments. */
export function argJson(name: string): fc.Arbitrary<unknown> {
  if (name === 'items') return batchItems;
  const asJson: Record<string, fc.Arbitrary<unknown>> = {
    decimals: fc.oneof(
      fc.integer({ min: 0, max: 40 }),
      fc.constantFrom<unknown>(-1, 41, 1e10, 2.5, '2', true, -0, new RawJson('2.0'), new RawJson('1e999')),
    ),
    value: fc.constantFrom<unknown>(12.5, 1, new RawJson('1e999999999'), new RawJson('123456789012345678901234567890'), ['1'], {
      value: '1',
    }),
    symbols: fc.oneof(
      fc.array(currency, { maxLength: 4 }),
      fc.constantFrom<unknown>(
        ['USD', null],
        [['USD']],
        Array.from({ length: 101 }, () => 'USD'),
      ),
    ),
    expiresIn: fc.oneof(fc.integer({ min: 60, max: 604_800 }), fc.constantFrom<unknown>(59, 604_801, 0, -1, 1e10, 86_400.5, '86400', true)),
  };
  return fc.oneof(
    { weight: 4, arbitrary: argText(name) },
    { weight: 1, arbitrary: asJson[name] ?? anyJson },
    { weight: 1, arbitrary: anyJson },
  );
}

const unitConversion = fc
  .record({
    pair: sameCategoryPair.chain(([a, b]) => fc.tuple(fc.constantFrom(a.id, a.symbol), fc.constantFrom(b.id, b.symbol))),
    value: decimalValue,
    decimals: fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined }),
    rounding: fc.option(fc.constantFrom(...ROUNDING_MODES), { nil: undefined }),
  })
  .map(({ pair: [from, to], ...rest }) => ({ from, to, ...rest }));
const quotedCurrency = fc.constantFrom('USD', 'usd', 'JPY', 'EUR', 'eur', 'GBP', 'RUB');
const publishedDate = fc.constantFrom('2024-03-27', '2024-03-28', '2024-03-30', '2024-04-02', '2024-04-03');
const currencyConversion = fc.record({
  value: decimalValue,
  from: quotedCurrency,
  to: quotedCurrency,
  decimals: fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined }),
  rounding: fc.option(fc.constantFrom(...ROUNDING_MODES), { nil: undefined }),
  date: fc.option(publishedDate, { nil: undefined }),
});
const batchItem = fc.oneof(unitConversion, currencyConversion);
/** A `lang`: supported, regional, unknown and malformed tags (none is an error). */
const lang = fc.option(fc.constantFrom('de', 'de-CH', 'ja', 'en-GB', 'zh-Hant-TW', 'xx-invalid', 'en_US', ''), { nil: undefined });

/** Valid arguments of every Query field (and of a batch item): the base that hostile values replace. */
export const VALID_ARGS: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
  categories: fc.record({ lang }),
  category: fc.record({ id: fc.constantFrom(...CATEGORIES.map((c) => c.id), 'LENGTH'), lang }),
  units: fc.record({ category: fc.option(fc.constantFrom(...CATEGORIES.map((c) => c.id)), { nil: undefined }), lang }),
  unit: fc.record({ id: fc.constantFrom(...UNIT_NAMES, 'Kilometer pro Stunde'), lang }),
  convert: fc.tuple(unitConversion, lang).map(([args, language]) => ({ ...args, lang: language })),
  convertPost: fc.tuple(unitConversion, lang).map(([args, language]) => ({ ...args, lang: language })),
  batch: fc.record({ items: fc.array(batchItem, { minLength: 1, maxLength: 4 }) }),
  batchItem,
  convertCurrency: currencyConversion,
  rates: fc.record({
    date: fc.option(publishedDate, { nil: undefined }),
    // A list: as text (a query string) String() writes it as the comma list REST takes.
    symbols: fc.option(fc.array(quotedCurrency, { minLength: 1, maxLength: 3 }), { nil: undefined }),
    base: fc.option(quotedCurrency, { nil: undefined }),
    amount: fc.option(decimalValue, { nil: undefined }),
    decimals: fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined }),
    rounding: fc.option(fc.constantFrom(...ROUNDING_MODES), { nil: undefined }),
  }),
  rateSeries: fc.record({
    start: fc.constantFrom('2024-03-01', '2024-03-27', '1999-01-01', '2014-03-28'),
    end: fc.constantFrom('2024-03-28', '2024-04-02', '2024-04-30', '2030-01-01'),
    base: fc.option(quotedCurrency, { nil: undefined }),
    // A list, as for rates: as text String() writes the comma list REST takes; as JSON a GraphQL list
    // (a joined string would be one code, refused, and leave the property almost never answered).
    symbols: fc.option(fc.array(quotedCurrency, { minLength: 1, maxLength: 3 }), { nil: undefined }),
    group: fc.option(fc.constantFrom('day', 'week', 'month', 'year'), { nil: undefined }),
  }),
  rateSeriesLink: fc.record({
    start: fc.constantFrom('2024-03-01', '2024-03-27', '1999-01-01', '2014-03-28'),
    end: fc.option(fc.constantFrom('2024-03-28', '2024-04-02', '2024-04-30'), { nil: undefined }),
    base: fc.option(quotedCurrency, { nil: undefined }),
    symbols: fc.option(fc.array(quotedCurrency, { minLength: 1, maxLength: 3 }), { nil: undefined }),
    group: fc.option(fc.constantFrom('day', 'week', 'month', 'year'), { nil: undefined }),
    format: fc.option(fc.constantFrom('csv', 'ndjson'), { nil: undefined }),
    expiresIn: fc.option(fc.integer({ min: 60, max: 604_800 }), { nil: undefined }),
  }),
  currencies: fc.record({ name: fc.option(fc.constantFrom('Schweizer Franken', 'US Dollar', 'franc suisse'), { nil: undefined }), lang }),
  currency: fc.record({ code: fc.constantFrom('USD', 'usd', 'HRK', 'ROL', 'EUR', 'XYZ'), lang }),
  latestRates: fc.constant({}),
  health: fc.constant({}),
  sources: fc.constant({}),
  usage: fc.constant({}),
};

const VALID = Symbol('valid');
const ABSENT = Symbol('absent');

/**
 * The arguments of `field` as [name, value] entries: valid ones, each now and then replaced by a
 * hostile value or left out. As `text` (query strings, paths) or as `json` (bodies, variables).
 */
export function fieldArgs(field: string, names: readonly string[], as: 'text' | 'json'): fc.Arbitrary<[string, unknown][]> {
  const valid = VALID_ARGS[field] ?? fc.constant<Record<string, unknown>>({});
  const hostile = (name: string) => (as === 'text' ? argText(name) : argJson(name));
  const choices = fc.tuple(
    ...names.map((name) =>
      fc.oneof(
        { weight: 12, arbitrary: fc.constant<typeof VALID | typeof ABSENT>(VALID) },
        { weight: 3, arbitrary: hostile(name) },
        { weight: 1, arbitrary: fc.constant<typeof VALID | typeof ABSENT>(ABSENT) },
      ),
    ),
  );
  return fc.tuple(valid, choices).map(([base, chosen]) =>
    names.flatMap((name, i): [string, unknown][] => {
      const choice = chosen[i];
      const value = choice === VALID ? base[name] : choice;
      if (choice === ABSENT || value === undefined) return [];
      return [[name, as === 'text' && choice === VALID ? String(value) : value]];
    }),
  );
}

/** The arguments of `field` as [name, value] entries, every one valid (VALID_ARGS), none hostile. */
export function validArgs(field: string, names: readonly string[]): fc.Arbitrary<[string, unknown][]> {
  return (VALID_ARGS[field] ?? fc.constant<Record<string, unknown>>({})).map((base) =>
    names.flatMap((name): [string, unknown][] => (base[name] === undefined ? [] : [[name, base[name]]])),
  );
}

/** A JSON object of `field`'s arguments (see fieldArgs), now and then with unknown, prototype or repeated keys. */
export function hostileObject(field: string, names: readonly string[]): fc.Arbitrary<JsonObject> {
  const extra = fc.array(fc.tuple(fc.constantFrom(...PROTOTYPE_KEYS, 'extra', 'key', ...names), anyJson), { minLength: 1, maxLength: 2 });
  return fc
    .tuple(fieldArgs(field, names, 'json'), fc.oneof({ weight: 6, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: extra }))
    .map(([entries, extras]) => new JsonObject([...entries, ...extras]));
}

const ITEM_FIELDS = ['value', 'from', 'to', 'decimals', 'rounding', 'date'];
const batchItems: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.array(fc.oneof({ weight: 8, arbitrary: hostileObject('batchItem', ITEM_FIELDS) }, { weight: 1, arbitrary: anyJson }), {
      maxLength: 6,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(1000, 1001).map((n) => Array.from({ length: n }, () => ({ value: '1', from: 'mile', to: 'km' }))),
  },
  { weight: 1, arbitrary: anyJson },
);
