import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Rational } from '../../src/domain/rational';

const big = fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n });
const nonZero = big.filter((n) => n !== 0n);
const rational = fc.tuple(big, nonZero).map(([n, d]) => Rational.of(n, d));

describe('Rational keeps a reduced fraction with a positive denominator', () => {
  it.each([
    [6n, 4n, '3/2'],
    [-6n, 4n, '-3/2'],
    [6n, -4n, '-3/2'],
    [-6n, -4n, '3/2'],
    [0n, -5n, '0'],
    [10n, 5n, '2'],
  ])('of(%s, %s) is %s', (num, den, text) => {
    expect(Rational.of(num, den).toString()).toBe(text);
  });

  it('refuses a zero denominator and division by zero with a RangeError', () => {
    expect(() => Rational.of(1n, 0n)).toThrow(RangeError);
    expect(() => Rational.ONE.div(Rational.ZERO)).toThrow(RangeError);
  });

  it('refuses numbers instead of bigints with a TypeError', () => {
    expect(() => Rational.of(1 as unknown as bigint)).toThrow(TypeError);
  });
});

describe('Rational.parse reads catalogue decimals and fractions exactly', () => {
  it.each([
    ['0.0254', '127/5000'],
    ['-12.5', '-25/2'],
    ['1200/3937', '1200/3937'],
    ['-10/4', '-5/2'],
    ['1000', '1000'],
    ['0.0000000000000000001602176634', '801088317/5000000000000000000000000000'],
  ])('%s is %s', (text, exact) => {
    expect(Rational.parse(text).toString()).toBe(exact);
  });

  it.each(['', '1e5', '1/0', '1/-2', 'pi', '.5', '1.', ' 1'])('refuses %j', (text) => {
    expect(() => Rational.parse(text)).toThrow();
  });
});

describe('Rational arithmetic obeys the field laws', () => {
  it('add/sub/mul/div/neg/compare are consistent', () => {
    fc.assert(
      fc.property(rational, rational, (a, b) => {
        expect(a.add(b).sub(b).equals(a)).toBe(true);
        expect(a.add(b).equals(b.add(a))).toBe(true);
        expect(a.mul(b).equals(b.mul(a))).toBe(true);
        if (!b.isZero()) expect(a.div(b).mul(b).equals(a)).toBe(true);
        expect(a.neg().neg().equals(a)).toBe(true);
        expect(a.compare(b)).toBe(a.sub(b).sign());
        expect(a.sign()).toBe(a.num < 0n ? -1 : a.num > 0n ? 1 : 0);
        expect(a.den > 0n).toBe(true);
      }),
    );
  });
});

describe('mul, div, reciprocal and pow give lowest terms without reducing the product', () => {
  const lowest = (num: bigint, den: bigint): string => Rational.of(num, den).toString();

  it('each equals the reduced fraction of its plain product', () => {
    fc.assert(
      fc.property(rational, rational, fc.integer({ min: -12, max: 12 }), (a, b, e) => {
        expect(a.mul(b).toString()).toBe(lowest(a.num * b.num, a.den * b.den));
        if (!b.isZero()) expect(a.div(b).toString()).toBe(lowest(a.num * b.den, a.den * b.num));
        if (!a.isZero()) expect(a.reciprocal().toString()).toBe(lowest(a.den, a.num));
        if (!a.isZero() || e >= 0) {
          const k = BigInt(Math.abs(e));
          expect(a.pow(e).toString()).toBe(e < 0 ? lowest(a.den ** k, a.num ** k) : lowest(a.num ** k, a.den ** k));
        }
      }),
      { numRuns: 500 },
    );
  });

  it.each([
    ['6/35', '14/15', '4/25'],
    ['-6/35', '14/15', '-4/25'],
    ['0', '7/3', '0'],
    ['7/3', '0', '0'],
    ['-3/2', '-2/3', '1'],
  ])('%s × %s is %s', (a, b, product) => {
    expect(Rational.parse(a).mul(Rational.parse(b)).toString()).toBe(product);
  });

  it('0 to a negative power, and the reciprocal of 0, are RangeErrors; x^0 is 1', () => {
    expect(() => Rational.ZERO.pow(-1)).toThrow(RangeError);
    expect(() => Rational.ZERO.reciprocal()).toThrow(RangeError);
    expect(Rational.parse('-2/3').pow(0).equals(Rational.ONE)).toBe(true);
    expect(Rational.parse('-2/3').pow(-3).toString()).toBe('-27/8');
    expect(() => Rational.ONE.pow(1.5)).toThrow(RangeError);
  });
});
