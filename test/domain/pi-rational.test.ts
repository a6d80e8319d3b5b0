import Decimal from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ROUNDING_MODES } from '../../src/domain/decimal';
import { formatPiRational, PiRational } from '../../src/domain/pi-rational';
import { Rational } from '../../src/domain/rational';
import { oracleFormat } from './helpers';

/** An independent oracle: decimal.js at 1,000 significant digits, π from its own constant. */
const Wide = Decimal.clone({ precision: 1000, rounding: Decimal.ROUND_HALF_EVEN });
const PI = Wide.acos(-1);
const oracle = (q: Rational, k: number) => new Wide(q.num.toString()).div(q.den.toString()).times(PI.pow(k));

describe('PiRational keeps π a symbol through products', () => {
  it.each([
    ['180/pi', '0.18/pi', '1000'],
    ['180/pi', '180/pi', '1'],
    ['0.18/pi', '180/pi', '1/1000'],
    ['3', '2', '3/2'],
  ])('%s ÷ %s is exactly %s', (a, b, quotient) => {
    expect(PiRational.parse(a).div(PiRational.parse(b)).toString()).toBe(quotient);
  });

  it('(180/π)^12 · (0.18/π)^-12 is 1000^12, a rational', () => {
    const x = PiRational.parse('180/pi').pow(12).mul(PiRational.parse('0.18/pi').pow(-12));
    expect(x.piPower).toBe(0);
    expect(x.coefficient.equals(Rational.of(10n ** 36n))).toBe(true);
  });

  it('zero has no power of π', () => {
    expect(PiRational.of(Rational.ZERO, 5).piPower).toBe(0);
  });
});

describe('formatPiRational prints what the exact value q·π^k prints under the contract', () => {
  const rational = fc
    .tuple(fc.bigInt({ min: -(10n ** 45n), max: 10n ** 45n }), fc.bigInt({ min: 1n, max: 10n ** 45n }))
    .map(([n, d]) => Rational.of(n, d));
  const decimals = fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined });

  it('random q, k from -24 to 24, decimals and rounding modes agree with decimal.js at 1,000 digits', () => {
    fc.assert(
      fc.property(rational, fc.integer({ min: -24, max: 24 }), decimals, fc.constantFrom(...ROUNDING_MODES), (q, k, places, rounding) => {
        expect(formatPiRational(PiRational.of(q, k), places, rounding)).toBe(oracleFormat(oracle(q, k), places, rounding));
      }),
      { numRuns: 400 },
    );
  });

  // q chosen so that q·π^k lies within about 10^-90 of a rounding boundary: the first precision
  // tried cannot tell which side it is on, and the answer must still be the true side's.
  it.each([
    [1, 2, 'HALF_UP'],
    [-1, 2, 'HALF_UP'],
    [2, 0, 'HALF_EVEN'],
    [-3, 5, 'DOWN'],
    [12, undefined, 'HALF_UP'],
    [-12, 40, 'CEILING'],
  ] as const)('a value next to a boundary: k = %i, decimals %s, %s', (k, places, rounding) => {
    const boundary = new Wide(places === undefined ? '1.2345678901234567890123456789012345678905' : `7.${'0'.repeat(places)}5`);
    for (const side of [-1, 1]) {
      const target = boundary.plus(new Wide(10).pow(-90).times(side)).div(PI.pow(k));
      const [n, d] = target.toFraction(new Wide(10).pow(130)).map((x) => BigInt(x.toFixed()));
      const q = Rational.of(n!, d!);
      expect(formatPiRational(PiRational.of(q, k), places, rounding)).toBe(oracleFormat(oracle(q, k), places, rounding));
    }
  });

  it('a rational (k = 0) prints as formatDecimal prints it', () => {
    expect(formatPiRational(PiRational.of(Rational.of(1n, 3n)), 3)).toBe('0.333');
    expect(formatPiRational(PiRational.of(Rational.of(10n ** 36n)))).toBe('1000000000000000000000000000000000000');
  });
});
