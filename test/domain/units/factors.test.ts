import Decimal from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { formatDecimal } from '../../../src/domain/decimal';
import { PI_DIGITS, parseFactor } from '../../../src/domain/units/factors';

describe('PI_DIGITS is pi to 200 places, so radian results are right to the 40th digit', () => {
  it('matches decimal.js acos(-1) computed at 220 significant digits, truncated', () => {
    const Wide = Decimal.clone({ precision: 220 });
    const pi = Wide.acos(-1)
      .toSignificantDigits(PI_DIGITS.length - 1, Decimal.ROUND_DOWN)
      .toFixed();
    expect(PI_DIGITS).toBe(pi);
    expect(PI_DIGITS.length - 2).toBeGreaterThanOrEqual(120); // at least 120 correct digits, as the brief requires
  });

  it('matches decimal.js at 120 significant digits', () => {
    const pi120 = Decimal.clone({ precision: 120, rounding: Decimal.ROUND_DOWN }).acos(-1).toFixed();
    expect(PI_DIGITS.startsWith(pi120.slice(0, -1))).toBe(true); // its last digit may be rounded
  });
});

describe('parseFactor reads catalogue factors', () => {
  it.each([
    ['0.0254', '0.0254'],
    ['1200/3937', '0.3048006096012192024384048768097536195072'],
    ['180/pi', '57.29577951308232087679815481410517033241'],
    ['0.18/pi', '0.05729577951308232087679815481410517033241'],
  ])('%s is %s to 40 significant digits', (factor, printed) => {
    expect(formatDecimal(parseFactor(factor))).toBe(printed);
  });
});
