import Decimal from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { piBounds } from '../../src/domain/pi';
import { PI_DIGITS } from '../../src/domain/units/factors';

/** π to 1,020 places from decimal.js (its own constant holds 1,025 digits). */
const Wide = Decimal.clone({ precision: 1021, rounding: Decimal.ROUND_DOWN });
const PI_WIDE = Wide.acos(-1);

describe('piBounds encloses π strictly, within 3 units of the last place', () => {
  it.each([0, 1, 5, 40, 63, 64, 65, 200, 333, 1000, 130, 7])('%i places', (places) => {
    const { low, high } = piBounds(places);
    const scaled = PI_WIDE.times(new Wide(10).pow(places));
    expect(new Wide(low.toString()).lt(scaled)).toBe(true);
    expect(new Wide(high.toString()).gt(scaled)).toBe(true);
    expect(high - low <= 3n).toBe(true);
  });

  it('agrees with the catalogue constant PI_DIGITS, to its 200 places', () => {
    const digits = BigInt(PI_DIGITS.replace('.', ''));
    const { low, high } = piBounds(200);
    expect(low <= digits && digits < high).toBe(true);
  });

  it.each([-1, 1.5, Number.NaN])('refuses %s places', (places) => {
    expect(() => piBounds(places)).toThrow(RangeError);
  });
});
