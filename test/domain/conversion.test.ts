import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { convertUnitsOrExplain } from '../../src/domain/conversion';
import { knownCurrency } from '../../src/domain/currency/codes';
import { ApiError } from '../../src/domain/errors';
import { CATEGORIES, UNITS } from '../../src/domain/units/catalogue';
import { convertUnits, type UnitConversionRequest } from '../../src/domain/units/convert';
import { anyUnit, decimalValue, decimalsOption, roundingMode, sameCategoryPair } from './units/arbitraries';

/**
 * convertUnitsOrExplain answers linear pairs with one cached factor per pair (a shortcut for the
 * batch and REST paths): it must give exactly what convertUnits gives, answer or error, for any input.
 */
const isCurrency = (token: string) => knownCurrency(token) !== undefined;

function outcome(run: () => unknown): unknown {
  try {
    return { answer: run() };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { code: error.code, message: error.message, param: error.param };
  }
}

const same = (request: UnitConversionRequest) =>
  expect(outcome(() => convertUnitsOrExplain(request))).toEqual(outcome(() => convertUnits(request, { isCurrency })));

describe('convertUnitsOrExplain gives what convertUnits gives', () => {
  it('every pair of units of each category, on fixed values, twice (the second time from the cached factor)', () => {
    for (const category of CATEGORIES) {
      const units = UNITS.filter((u) => u.category === category.id);
      for (const from of units) {
        for (const to of units) {
          for (const value of [
            '1',
            '-12.345',
            '0',
            '0.001',
            '98765432109876543210.0123456789',
            '-0.0000000000000000000000000000000000000001',
          ]) {
            same({ value, from: from.id, to: to.id });
            same({ value, from: from.symbol, to: to.id.toUpperCase(), decimals: 3, rounding: 'HALF_EVEN' });
          }
        }
      }
    }
  });

  it('random pairs (any category), values, decimals and rounding modes', () => {
    fc.assert(
      fc.property(
        fc.oneof(sameCategoryPair, fc.tuple(anyUnit, anyUnit)),
        decimalValue,
        decimalsOption,
        fc.option(roundingMode, { nil: undefined }),
        ([from, to], value, decimals, rounding) => {
          same({ value, from: from.id, to: to.id, decimals, rounding });
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('bad inputs, in the contract order (value, decimals, rounding, from, to)', () => {
    const bad: UnitConversionRequest[] = [
      { value: '1e3', from: 'inch', to: 'meter' },
      { value: '1', from: 'inch', to: 'meter', decimals: 41 },
      { value: '1e3', from: 'nope', to: 'meter', decimals: 41 },
      { value: '1', from: 'inch', to: 'meter', rounding: 'SIDEWAYS' as never },
      { value: '1', from: 'inch', to: 'meter', decimals: 41, rounding: 'SIDEWAYS' as never },
      { value: '1', from: '', to: 'meter' },
      { value: '1', from: 'inch', to: '' },
      { value: '1', from: 'nope', to: 'nope' },
      { value: '1', from: 'inch', to: 'nope' },
      { value: '1', from: 'inch', to: 'kilogram' },
      { value: '1', from: 'inch', to: 'EUR' },
      { value: '1', from: 'USD', to: 'EUR' },
      { value: '-300', from: 'celsius', to: 'kelvin' },
      { value: '12', from: 7 as never, to: 'meter' },
      { value: 12 as never, from: 'inch', to: 'meter' },
    ];
    for (const request of bad) {
      same(request);
      expect(() => convertUnitsOrExplain(request)).toThrow(ApiError);
    }
  });
});
