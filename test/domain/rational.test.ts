import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Rational } from '../../src/domain/rational';

const big = fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n });
const nonZero = big.filter((n) => n !== 0n);
const rational = fc.tuple(big, nonZero).map(([n, d]) => Rational.of(n, d));

describe('Rational keeps a reduced fraction with a positive denominator', () => {
  it.each([
    [6n, 4n, '3/2'], [-6n, 4n, '-3/2'], [6n, -4n, '-3/2'], [-6n, -4n, '3/2'], [0n, -5n, '0'], [10n, 5n, '2'],
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
    ['0.0254', '127/5000'], ['-12.5', '-25/2'], ['1200/3937', '1200/3937'], ['-10/4', '-5/2'], ['1000', '1000'],
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
    fc.assert(fc.property(rational, rational, (a, b) => {
      expect(a.add(b).sub(b).equals(a)).toBe(true);
      expect(a.add(b).equals(b.add(a))).toBe(true);
      expect(a.mul(b).equals(b.mul(a))).toBe(true);
      if (!b.isZero()) expect(a.div(b).mul(b).equals(a)).toBe(true);
      expect(a.neg().neg().equals(a)).toBe(true);
      expect(a.compare(b)).toBe(a.sub(b).sign());
      expect(a.sign()).toBe(a.num < 0n ? -1 : a.num > 0n ? 1 : 0);
      expect(a.den > 0n).toBe(true);
    }));
  });
});
