import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decimalTextMistake,
  decimalTextRule,
  DECIMAL_PATTERN,
  ROUNDING_MODES,
  formatDecimal,
  formatFraction,
  formatScaled,
  parseDecimalValue,
  parseDecimals,
  parseRounding,
  type RoundingMode,
} from '../../src/domain/decimal';
import { Rational } from '../../src/domain/rational';
import { OUTPUT_PATTERN, Oracle, expectApiError, oracleFormat } from './helpers';

const d40 = '1234567890123456789012345678901234567890';
const r = (text: string): Rational => Rational.parse(text);

describe('parseDecimalValue accepts only the contract decimal: optional "-", 1-40 digits, optional "." and 1-40 digits', () => {
  it.each([
    ['0', '0'],
    ['-0', '0'],
    ['12.5', '25/2'],
    ['-12.5', '-25/2'],
    ['007', '7'],
    ['0.0000000001', '1/10000000000'],
    [d40, d40],
    [`-${d40}.${d40}`, r(`-${d40}.${d40}`).toString()],
    ['1.000', '1'],
  ])('accepts %j as %s', (text, exact) => {
    expect(parseDecimalValue(text).toString()).toBe(exact);
  });

  it.each([
    '',
    '-',
    '1e5',
    '1E5',
    '+1',
    ' 1',
    '1 ',
    '1\n',
    '\n1',
    '1_000',
    '1,000',
    '1,5',
    '0x1F',
    '0b1',
    'NaN',
    'Infinity',
    '-Infinity',
    '١٢',
    '１２',
    '1.',
    '.5',
    '-.5',
    '1..2',
    '1.2.3',
    '--1',
    '1-',
    '−1',
    `${d40}1`,
    `1.${d40}1`,
    '12 345',
  ])('refuses %j with INVALID_REQUEST on param value', (text) => {
    expectApiError(() => parseDecimalValue(text), 'INVALID_REQUEST', 'value');
  });

  it.each([[12.5], [0], [Number.NaN], [null], [undefined], [{}], [[]], [true], [1n]])('refuses the non-string %s', (value) => {
    expectApiError(() => parseDecimalValue(value), 'INVALID_REQUEST', 'value');
  });

  it('tells a caller who sent a JSON number to send a string', () => {
    const error = expectApiError(() => parseDecimalValue(12.5), 'INVALID_REQUEST', 'value');
    expect(error.message).toBe('value must be a decimal string such as "12.5", not a JSON number.');
  });

  it('names the parameter it was given', () => {
    expectApiError(() => parseDecimalValue('x', 'items[3].value'), 'INVALID_REQUEST', 'items[3].value');
  });

  it('refuses a 1 MB string at once, without running a regex over it', () => {
    const huge = '1'.repeat(1_000_000);
    const started = performance.now();
    for (let i = 0; i < 100; i++) expect(() => parseDecimalValue(huge)).toThrow();
    expect(performance.now() - started).toBeLessThan(200);
  });

  it('agrees with DECIMAL_PATTERN on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 90 }), (text) => {
        let accepted = true;
        try {
          parseDecimalValue(text);
        } catch {
          accepted = false;
        }
        expect(accepted).toBe(DECIMAL_PATTERN.test(text));
      }),
    );
  });
});

describe('parseDecimals takes an integer 0..40 (a JSON integer, or digits from a query string)', () => {
  it.each([
    [0, 0],
    [40, 40],
    ['0', 0],
    ['40', 40],
    ['07', 7],
    [-0, 0],
    [2.0, 2],
    [undefined, undefined],
    [null, undefined],
  ])('reads %j as %j', (value, expected) => {
    expect(parseDecimals(value)).toBe(expected);
  });

  it.each([[41], [-1], [2.5], ['2.5'], [''], ['abc'], [' 2'], ['41'], ['100'], ['-1'], ['4e1'], [Number.NaN], [Infinity], [true], [{}]])(
    'refuses %j with INVALID_REQUEST on param decimals',
    (value) => {
      expectApiError(() => parseDecimals(value), 'INVALID_REQUEST', 'decimals');
    },
  );
});

describe('parseRounding takes one of the six modes, HALF_UP by default', () => {
  it.each(
    ROUNDING_MODES.flatMap((m) => [
      [m, m],
      [m.toLowerCase(), m],
    ]),
  )('reads %j as %s', (value, mode) => {
    expect(parseRounding(value)).toBe(mode);
  });

  it('defaults to HALF_UP and accepts any letter case', () => {
    expect([parseRounding(undefined), parseRounding(null), parseRounding('Half_Even')]).toEqual(['HALF_UP', 'HALF_UP', 'HALF_EVEN']);
  });

  it.each([[''], ['half-up'], ['ROUND_HALF_UP'], ['HALF_DOWN'], [1], [{}], ['x'.repeat(1_000_000)]])(
    'refuses %j, listing the modes',
    (value) => {
      const error = expectApiError(() => parseRounding(value), 'INVALID_REQUEST', 'rounding');
      expect(error.message).toContain('HALF_UP, HALF_EVEN, DOWN, UP, FLOOR, CEILING');
    },
  );
});

describe('formatDecimal with decimals rounds the exact value once, printing exactly that many places', () => {
  const MODES: RoundingMode[] = ['HALF_UP', 'HALF_EVEN', 'DOWN', 'UP', 'FLOOR', 'CEILING'];
  // value, decimals, then the expected text for each mode in MODES order
  it.each([
    ['2.5', 0, '3', '2', '2', '3', '2', '3'],
    ['-2.5', 0, '-3', '-2', '-2', '-3', '-3', '-2'],
    ['1.5', 0, '2', '2', '1', '2', '1', '2'],
    ['-1.5', 0, '-2', '-2', '-1', '-2', '-2', '-1'],
    ['0.5', 0, '1', '0', '0', '1', '0', '1'],
    ['-0.5', 0, '-1', '0', '0', '-1', '-1', '0'],
    ['2.4', 0, '2', '2', '2', '3', '2', '3'],
    ['-2.6', 0, '-3', '-3', '-2', '-3', '-3', '-2'],
    ['-0.4', 0, '0', '0', '0', '-1', '-1', '0'],
    ['-0.0001', 2, '0.00', '0.00', '0.00', '-0.01', '-0.01', '0.00'],
    ['-0', 2, '0.00', '0.00', '0.00', '0.00', '0.00', '0.00'],
    ['12.345', 2, '12.35', '12.34', '12.34', '12.35', '12.34', '12.35'],
    ['-12.345', 2, '-12.35', '-12.34', '-12.34', '-12.35', '-12.35', '-12.34'],
    ['0.125', 2, '0.13', '0.12', '0.12', '0.13', '0.12', '0.13'],
    ['12.3', 2, '12.30', '12.30', '12.30', '12.30', '12.30', '12.30'],
    ['9.995', 2, '10.00', '10.00', '9.99', '10.00', '9.99', '10.00'],
    [`${d40}.5`, 0, `${d40.slice(0, -1)}1`, d40, d40, `${d40.slice(0, -1)}1`, d40, `${d40.slice(0, -1)}1`],
  ])('%s to %i places', (value, decimals, ...expected) => {
    expect(MODES.map((mode) => formatDecimal(r(value), decimals, mode))).toEqual(expected);
  });

  it.each([
    [Rational.of(1n, 3n), 40, '0.3333333333333333333333333333333333333333'],
    [Rational.of(2n, 3n), 40, '0.6666666666666666666666666666666666666667'],
    [Rational.of(2n, 3n), 0, '1'],
    [Rational.of(-1n, 7n), 5, '-0.14286'],
    [Rational.of(10n ** 60n, 3n), 1, `${'3'.repeat(60)}.3`],
  ])('%s to %i places is %s (HALF_UP)', (value, decimals, expected) => {
    expect(formatDecimal(value, decimals)).toBe(expected);
  });

  it('refuses decimals outside 0..40 as a programming error', () => {
    for (const decimals of [-1, 41, 1.5]) expect(() => formatDecimal(Rational.ONE, decimals)).toThrow(RangeError);
  });
});

describe('formatDecimal without decimals: exact within 40 significant digits, else half-even to 40', () => {
  it.each([
    [r('12.50'), '12.5'],
    [r('1.000'), '1'],
    [r('-0'), '0'],
    [Rational.ZERO, '0'],
    [r(d40), d40],
    [r(`0.${d40}`), '0.123456789012345678901234567890123456789'],
    [r(`-${d40}.${d40}`), `-${d40}`],
    [r(`${d40.slice(0, -1)}1.5`), `${d40.slice(0, -1)}2`],
    [r(`${d40}.5`), d40], // a tie goes to the even digit
    [r(`${'9'.repeat(40)}.5`), `1${'0'.repeat(40)}`],
    [r('0.12345678901234567890123456789012345678905'), '0.123456789012345678901234567890123456789'],
    [r('0.12345678901234567890123456789012345678915'), '0.1234567890123456789012345678901234567892'],
    [Rational.of(1n, 3n), '0.3333333333333333333333333333333333333333'],
    [Rational.of(2n, 3n), '0.6666666666666666666666666666666666666667'],
    [Rational.of(1n, 7n), '0.1428571428571428571428571428571428571429'],
    [Rational.of(-100n, 3n), '-33.33333333333333333333333333333333333333'],
    [Rational.of(10n ** 50n, 3n), `${'3'.repeat(40)}${'0'.repeat(10)}`],
    [Rational.of(2n * 10n ** 50n, 3n), `${'6'.repeat(39)}7${'0'.repeat(10)}`],
    [Rational.of(1n, 3n * 10n ** 50n), `0.${'0'.repeat(50)}${'3'.repeat(40)}`],
    [Rational.of(1n, 2n ** 50n), '0.00000000000000088817841970012523233890533447265625'], // 35 digits: exact
    [Rational.of(1n, 2n ** 70n), '0.0000000000000000000008470329472543003390683225006796419620514'], // 48 digits: rounded
    [Rational.of(-1n, 10n ** 60n), `-0.${'0'.repeat(59)}1`],
  ])('%s prints as %s', (value, expected) => {
    expect(formatDecimal(value)).toBe(expected);
  });

  it.each([
    [Rational.of(127n, 4n), '31.75'],
    [Rational.of(-127n, 4n), '-31.75'],
    [Rational.of(1n, 16n), '0.0625'],
    [Rational.of(1n, 32n), '0.03125'],
    [Rational.of(3n, 10000n), '0.0003'],
    [Rational.of(10n ** 39n, 1n), `1${'0'.repeat(39)}`],
    [Rational.of(10n ** 40n, 1n), `1${'0'.repeat(40)}`],
    [Rational.of(10n ** 40n + 1n, 1n), `1${'0'.repeat(40)}`],
    [Rational.of(10n ** 40n + 1n, 100n), `1${'0'.repeat(38)}`], // 41 significant digits: rounded to 40
    [Rational.of(1234567890123456789012345678901234567895n, 10000n), '123456789012345678901234567890123456.7895'], // 40: exact
  ])('a value that ends after few places: %s prints as %s', (value, expected) => {
    expect(formatDecimal(value)).toBe(expected);
  });

  it('prints values that end within a few places as decimal.js does (fast-check)', () => {
    const ending = fc
      .tuple(fc.bigInt({ min: -(10n ** 45n), max: 10n ** 45n }), fc.nat(6), fc.nat(6))
      .map(([n, twos, fives]) => Rational.of(n, 2n ** BigInt(twos) * 5n ** BigInt(fives)));
    fc.assert(
      fc.property(ending, (value) => {
        expect(formatDecimal(value)).toBe(oracleFormat(new Oracle(value.num.toString()).div(value.den.toString()), undefined, 'HALF_UP'));
      }),
      { numRuns: 3000 },
    );
  });

  it('is fast for values with thousands of digits (scale from digit lengths, not a digit loop)', () => {
    const started = performance.now();
    for (let i = 0; i < 100; i++) {
      formatDecimal(Rational.of(10n ** 3000n + 1n, 3n));
      formatDecimal(Rational.of(7n, 10n ** 3000n * 3n), 40, 'CEILING');
    }
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('formatDecimal agrees with decimal.js on random rationals', () => {
  const bigint = (digits: number) => fc.bigInt({ min: -(10n ** BigInt(digits)), max: 10n ** BigInt(digits) });
  const fraction = fc.tuple(bigint(60), fc.bigInt({ min: 1n, max: 10n ** 30n }), fc.nat(20), fc.nat(20)).map(
    // Powers of 2 and 5 in the denominator make terminating values and exact ties common.
    ([n, d, twos, fives]) => Rational.of(n, d * 2n ** BigInt(twos) * 5n ** BigInt(fives)),
  );
  const decimals = fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined });

  it('for every rounding mode, with and without decimals', () => {
    fc.assert(
      fc.property(fraction, decimals, fc.constantFrom(...ROUNDING_MODES), (value, places, mode) => {
        const exact = new Oracle(value.num.toString()).div(value.den.toString());
        const printed = formatDecimal(value, places, mode);
        expect(printed).toMatch(OUTPUT_PATTERN);
        expect(printed).toBe(oracleFormat(exact, places, mode));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('formatFraction prints num/den in any terms exactly as formatDecimal prints it in lowest terms', () => {
  const bigint = (digits: number) => fc.bigInt({ min: -(10n ** BigInt(digits)), max: 10n ** BigInt(digits) });
  const fraction = fc
    .tuple(bigint(60), fc.bigInt({ min: 1n, max: 10n ** 30n }), fc.nat(20), fc.nat(20))
    .map(([n, d, twos, fives]) => Rational.of(n, d * 2n ** BigInt(twos) * 5n ** BigInt(fives)));
  // Common factors as the conversion fast path leaves them: powers of ten, the factors' own, and large ones.
  const factor = fc.oneof(fc.constantFrom(1n, 2n, 10n, 1000n, 3937n, 10n ** 40n), fc.bigInt({ min: 1n, max: 10n ** 45n }));
  const decimals = fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined });

  it('for every rounding mode, with and without decimals', () => {
    fc.assert(
      fc.property(fraction, factor, decimals, fc.constantFrom(...ROUNDING_MODES), (value, g, places, mode) => {
        expect(formatFraction(value.num * g, value.den * g, places, mode)).toBe(formatDecimal(value, places, mode));
      }),
      { numRuns: 3000 },
    );
  });

  it.each([
    // 12.5 in → cm as the fast path forms it: 125 × 127/50 over 10.
    [125n * 127n, 10n * 50n, undefined, '31.75'],
    [-125n * 127n, 10n * 50n, 1, '-31.8'],
    [0n, 10n ** 50n, undefined, '0'],
    [0n, 7n, 3, '0.000'],
    [-1n, 3n * 10n ** 40n, 2, '0.00'],
    [10n ** 41n * 2n, 3n * 10n ** 41n, undefined, '0.6666666666666666666666666666666666666667'],
    [5n * 10n ** 30n, 10n ** 31n, 0, '1'],
    [-5n * 10n ** 30n, 10n ** 31n, 0, '-1'],
  ])('%s / %s with decimals %s is %s', (num, den, places, printed) => {
    expect(formatFraction(num, den, places)).toBe(printed);
  });

  it('refuses a denominator that is not positive', () => {
    expect(() => formatFraction(1n, 0n)).toThrow(RangeError);
    expect(() => formatFraction(1n, -2n)).toThrow(RangeError);
  });
});

describe('formatScaled prints n / 10^scale exactly as formatFraction does', () => {
  const decimals = fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined });
  const n = fc.oneof(
    fc.bigInt({ min: -(10n ** 60n), max: 10n ** 60n }),
    fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }),
    // Trailing zeros, as digits × a scaled factor often has.
    fc.tuple(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), fc.nat(30)).map(([m, z]) => m * 10n ** BigInt(z)),
  );

  it('for every rounding mode, with and without decimals', () => {
    fc.assert(
      fc.property(n, fc.nat(60), decimals, fc.constantFrom(...ROUNDING_MODES), (value, scale, places, mode) => {
        expect(formatScaled(value, scale, places, mode)).toBe(formatFraction(value, 10n ** BigInt(scale), places, mode));
      }),
      { numRuns: 5000 },
    );
  });

  it.each([
    [3175n, 2, undefined, '31.75'],
    [317500n, 4, undefined, '31.75'],
    [-254000n, 5, undefined, '-2.54'],
    [12n, 5, undefined, '0.00012'],
    [0n, 7, undefined, '0'],
    [0n, 7, 3, '0.000'],
    [1200n, 0, undefined, '1200'],
    [120000n, 2, undefined, '1200'],
    [-5n, 1, 3, '-0.500'],
    [-5n, 2, 1, '-0.1'],
    [-4n, 2, 1, '0.0'],
    [10n ** 45n, 0, undefined, '1' + '0'.repeat(45)],
    [10n ** 41n + 1n, 0, undefined, '1' + '0'.repeat(41)],
    [10n ** 41n + 1n, 41, undefined, '1'],
    [123456789012345678901234567890123456789012345n, 20, undefined, '1234567890123456789012345.67890123456789'],
  ])('%s / 10^%s with decimals %s is %s', (value, scale, places, printed) => {
    expect(formatScaled(value, scale, places)).toBe(printed);
  });

  it('refuses a negative scale and decimals out of range', () => {
    expect(() => formatScaled(1n, -1)).toThrow(RangeError);
    expect(() => formatScaled(1n, 0, 41)).toThrow(RangeError);
    expect(() => formatScaled(1n, 0, 1.5)).toThrow(RangeError);
  });
});

describe('a malformed value says which common mistake it is', () => {
  it.each([
    ['1'.repeat(41), 'it has 41 digits before the point, at most 40'],
    [`1.${'5'.repeat(41)}`, 'it has 41 digits after the point, at most 40'],
    ['1e30', 'exponent notation (such as 1e30) is not accepted: write every digit out'],
    ['-2.5E-3', 'exponent notation (such as 1e30) is not accepted: write every digit out'],
    ['1,5', 'the decimal separator is a point, not a comma: write 1.5'],
    ['1,000,000', 'thousands separators are not accepted: write 1000000'],
  ])('%s: %s', (value, mistake) => {
    expect(decimalTextMistake(value)).toBe(mistake);
    expect(() => parseDecimalValue(value)).toThrow(
      `value must be a decimal string: an optional "-", 1 to 40 digits, then optionally "." and 1 to 40 digits; ${mistake}.`,
    );
  });

  it.each(['abc', '+1', '1.', ' 1'])('%j: the rule alone', (value) => {
    expect(decimalTextMistake(value)).toBeUndefined();
    expect(decimalTextRule(value, 'A Decimal is')).toBe(
      'A Decimal is an optional "-", 1 to 40 digits, then optionally "." and 1 to 40 digits.',
    );
  });
});
