import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DECIMAL_PATTERN, formatDecimal, parseDecimalValue, type RoundingMode } from '../../../src/domain/decimal';
import { ApiError, ERROR_CODES } from '../../../src/domain/errors';
import { Rational } from '../../../src/domain/rational';
import { convertUnits, convertUnitsExact } from '../../../src/domain/units/convert';
import { OUTPUT_PATTERN } from '../helpers';
import { anyUnit, decimalValue, decimalsOption, roundingMode, sameCategoryPair } from './arbitraries';

/** Runs a conversion; an ApiError comes back as its code, so properties can compare outcomes. */
function attempt(run: () => string): string {
  try {
    return run();
  } catch (error) {
    if (error instanceof ApiError) return error.code;
    throw error;
  }
}

const negate = (text: string): string => (text.startsWith('-') ? text.slice(1) : /^[0.]+$/.test(text) ? text : `-${text}`);
const MIRROR: Record<RoundingMode, RoundingMode> = {
  HALF_UP: 'HALF_UP',
  HALF_EVEN: 'HALF_EVEN',
  DOWN: 'DOWN',
  UP: 'UP',
  FLOOR: 'CEILING',
  CEILING: 'FLOOR',
};

describe('conversion properties', () => {
  it('a unit to itself returns the value normalised (or refuses it: below absolute zero, 0 in a reciprocal unit)', () => {
    fc.assert(
      fc.property(anyUnit, decimalValue, decimalsOption, roundingMode, (unit, value, decimals, rounding) => {
        const got = attempt(() => convertUnits({ value, from: unit.id, to: unit.id, decimals, rounding }).result.value);
        const normalised = formatDecimal(parseDecimalValue(value), decimals, rounding);
        if (got === 'INVALID_REQUEST') expect(unit.kind).not.toBe('linear');
        else expect(got).toBe(normalised);
      }),
      { numRuns: 3000 },
    );
  });

  it('a -> b -> a returns the original value whenever a -> b is exact and a valid input', () => {
    let exercised = 0;
    fc.assert(
      fc.property(sameCategoryPair, decimalValue, ([a, b], value) => {
        const there = attempt(() => convertUnits({ value, from: a.id, to: b.id }).result.value);
        if (!DECIMAL_PATTERN.test(there)) return; // an error, or too long to send back
        const exact = convertUnitsExact(parseDecimalValue(value), a, b);
        if (!Rational.parse(there).equals(exact)) return; // rounded: no exact way back
        exercised++;
        const back = convertUnits({ value: there, from: b.id, to: a.id }).result.value;
        expect(back).toBe(formatDecimal(parseDecimalValue(value)));
      }),
      { numRuns: 3000 },
    );
    expect(exercised).toBeGreaterThan(300); // the property was not vacuous
  });

  it('a linear conversion of -v is minus that of v (FLOOR and CEILING trade places)', () => {
    const linearPair = sameCategoryPair.filter(([a, b]) => a.kind === 'linear' && b.kind === 'linear');
    fc.assert(
      fc.property(linearPair, decimalValue, decimalsOption, roundingMode, ([a, b], value, decimals, rounding) => {
        const minusValue = negate(value);
        const plus = convertUnits({ value, from: a.id, to: b.id, decimals, rounding: MIRROR[rounding] }).result.value;
        const minus = convertUnits({ value: minusValue, from: a.id, to: b.id, decimals, rounding }).result.value;
        expect(minus).toBe(negate(plus));
      }),
      { numRuns: 3000 },
    );
  });

  it('every result matches ^-?\\d+(\\.\\d+)?$ and every failure is a contract error', () => {
    fc.assert(
      fc.property(anyUnit, anyUnit, decimalValue, decimalsOption, roundingMode, (from, to, value, decimals, rounding) => {
        const got = attempt(() => convertUnits({ value, from: from.id, to: to.id, decimals, rounding }).result.value);
        if (ERROR_CODES.includes(got as never)) expect(['INVALID_REQUEST', 'INCOMPATIBLE_UNITS']).toContain(got);
        else expect(got).toMatch(OUTPUT_PATTERN);
      }),
      { numRuns: 3000 },
    );
  });
});
