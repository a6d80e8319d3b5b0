import Decimal from 'decimal.js';
import { describe, expect, it } from 'vitest';
import type { RoundingMode } from '../../../src/domain/decimal';
import { Rational } from '../../../src/domain/rational';
import { convertUnitExpressions } from '../../../src/domain/units/expression';
import { MAX_EXPONENT, MAX_FACTORS } from '../../../src/domain/units/expression/limits';
import { oracleFormat } from '../helpers';

/**
 * Expressions at the grammar's bounds (exponents ±12, 16 names), radians among them, checked
 * against an independent computation: decimal.js at 1,000 digits with π from its own constant,
 * and each unit's factor in base units (meter, kilogram, second, degree, euro) written out here.
 */
const Wide = Decimal.clone({ precision: 1000, rounding: Decimal.ROUND_HALF_EVEN });
const PI = Wide.acos(-1);
const RATES: Record<string, string> = { EUR: '1', USD: '1.0811', GBP: '0.85678', JPY: '163.45' };

const FACTORS: Record<string, Decimal> = {
  rad: new Wide(180).div(PI),
  radian: new Wide(180).div(PI),
  mrad: new Wide('0.18').div(PI),
  milliradians: new Wide('0.18').div(PI),
  degree: new Wide(1),
  gon: new Wide('0.9'),
  arcsec: new Wide(1).div(3600),
  arcmin: new Wide(1).div(60),
  kg: new Wide(1),
  lb: new Wide('0.45359237'),
  m: new Wide(1),
  ft: new Wide('0.3048'),
  ly: new Wide('9460730472580800'),
  s: new Wide(1),
  h: new Wide(3600),
  J: new Wide(1),
  W: new Wide(1),
  Pa: new Wide(1),
  N: new Wide(1),
  ...Object.fromEntries(Object.entries(RATES).map(([code, rate]) => [code, new Wide(1).div(rate)])),
};

type Written = readonly (readonly [string, number])[];
const text = (terms: Written, separator: string): string => terms.map(([name, e]) => `${name}^${e}`).join(separator);
const inBase = (terms: Written): Decimal => terms.reduce((f, [name, e]) => f.times(FACTORS[name]!.pow(e)), new Wide(1));

const SIXTEEN: Written = [
  ['rad', 12],
  ['mrad', 12],
  ['gon', 12],
  ['USD', 12],
  ['kg', 12],
  ['m', 12],
  ['s', 12],
  ['ly', 12],
  ['arcsec', 12],
  ['EUR', 12],
  ['J', 12],
  ['W', 12],
  ['Pa', 12],
  ['N', 12],
  ['h', 12],
  ['ft', 12],
];
const SIXTEEN_RESPELLED: Written = SIXTEEN.map(([name, e]) => [
  ({ rad: 'milliradians', mrad: 'radian', gon: 'arcmin', USD: 'GBP', kg: 'lb', ly: 'm', m: 'ly' } as Record<string, string>)[name] ?? name,
  e,
]);

const CASES: readonly { from: Written; to: Written; value: string; decimals?: number; rounding?: RoundingMode; exact?: string }[] = [
  {
    from: [
      ['rad', 12],
      ['mrad', -12],
    ],
    to: [],
    value: '1',
    exact: '1000000000000000000000000000000000000',
  },
  {
    from: [
      ['radian', 12],
      ['milliradians', -12],
    ],
    to: [],
    value: '-2.5',
    exact: '-2500000000000000000000000000000000000',
  },
  {
    from: [
      ['rad', -12],
      ['mrad', 12],
    ],
    to: [],
    value: '1',
    exact: '0.000000000000000000000000000000000001',
  },
  {
    from: [
      ['rad', 12],
      ['radian', -6],
      ['milliradians', -6],
    ],
    to: [],
    value: '1',
    exact: '1000000000000000000',
  },
  { from: [['rad', 12]], to: [['degree', 12]], value: '1' },
  { from: [['rad', -12]], to: [['arcsec', -12]], value: '123.456', decimals: 40, rounding: 'HALF_EVEN' },
  {
    from: [
      ['milliradians', -12],
      ['kg', 1],
    ],
    to: [
      ['gon', -12],
      ['lb', 1],
    ],
    value: '0.001',
    decimals: 3,
    rounding: 'CEILING',
  },
  {
    from: [
      ['USD', 12],
      ['rad', 12],
    ],
    to: [
      ['GBP', 12],
      ['mrad', 12],
    ],
    value: '1',
  },
  {
    from: [
      ['USD', -12],
      ['mrad', 12],
      ['s', -12],
    ],
    to: [
      ['JPY', -12],
      ['degree', 12],
      ['h', -12],
    ],
    value: '99.5',
    decimals: 0,
    rounding: 'DOWN',
  },
  {
    from: [
      ['rad', 12],
      ['mrad', -12],
      ['EUR', 1],
    ],
    to: [['USD', 1]],
    value: '1',
    exact: '1081100000000000000000000000000000000',
  },
  { from: SIXTEEN, to: SIXTEEN_RESPELLED, value: '1' },
  { from: SIXTEEN, to: SIXTEEN_RESPELLED, value: '-98765432109876543210.0123456789', decimals: 40, rounding: 'FLOOR' },
  { from: SIXTEEN_RESPELLED, to: SIXTEEN, value: '0.0000000000000000000000000000000000000001', rounding: 'UP', decimals: 40 },
];

const options = { isCurrency: (code: string) => Object.hasOwn(RATES, code), rateOf: (code: string) => Rational.parse(RATES[code]!) };

describe(`expressions at the bounds (exponents ±${MAX_EXPONENT}, up to ${MAX_FACTORS} names) convert exactly`, () => {
  it.each(
    CASES.flatMap((c) =>
      ['*', ' ', '·'].map((separator) => [`${text(c.from, separator)} → ${text(c.to, '*') || '1'}`, separator, c] as const),
    ),
  )('%s', (_, separator, c) => {
    const from = text(c.from, separator);
    const to = c.to.length === 0 ? '1' : text(c.to, '*');
    const answer = convertUnitExpressions({ value: c.value, from, to, decimals: c.decimals, rounding: c.rounding }, options);
    const expected = new Wide(c.value).times(inBase(c.from)).div(inBase(c.to));
    expect(answer.result.value).toBe(oracleFormat(expected, c.decimals, c.rounding));
    if (c.exact !== undefined) expect(answer.result.value).toBe(c.exact);
  });

  it('the table reaches both bounds', () => {
    expect(Math.max(...CASES.map((c) => c.from.length))).toBe(MAX_FACTORS);
    expect(
      CASES.some((c) => c.from.some(([, e]) => e === -MAX_EXPONENT)) && CASES.some((c) => c.from.some(([, e]) => e === MAX_EXPONENT)),
    ).toBe(true);
  });
});
