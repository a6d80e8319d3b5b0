import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CATALOGUE_JSON, readCatalogueJson } from '../../../scripts/generate-catalogue';
import type { RoundingMode } from '../../../src/domain/decimal';
import { ApiError } from '../../../src/domain/errors';
import { CATEGORIES } from '../../../src/domain/units/catalogue';
import { convertUnits } from '../../../src/domain/units/convert';
import { Oracle, oracleFormat, type OracleDecimal } from '../helpers';
import { anyUnit, decimalValue, decimalsOption, roundingMode, sameCategoryPair } from './arbitraries';
import { sharedDataPresent } from '../../helpers/shared-data';

/**
 * An independent oracle: decimal.js at 200 significant digits, straight from the catalogue JSON.
 * Each result is one division of exact products (the catalogue's recommended arithmetic), so
 * terminating results come out exact and the rest correctly rounded before the final rounding.
 */
interface OracleUnit {
  kind: string;
  n: OracleDecimal;
  d: OracleDecimal;
  piPower: number;
  offset: OracleDecimal;
}

const PI = Oracle.acos(-1);
const PRESENT = sharedDataPresent(CATALOGUE_JSON);
const json = PRESENT ? readCatalogueJson() : { categories: [], units: [] };
const ORACLE_UNITS = new Map<string, OracleUnit>(
  json.units.map((u) => {
    const overPi = /^(.+)\/pi$/.exec(u.factor_expr ?? '');
    const [n, d = '1'] = overPi ? [overPi[1]!] : u.factor_fraction!.split('/');
    return [u.id, { kind: u.kind, n: new Oracle(n!), d: new Oracle(d), piPower: overPi ? -1 : 0, offset: new Oracle(u.offset ?? 0) }];
  }),
);

/** The converted value, or 'INVALID' where the contract refuses the value. */
function oracleConvert(value: string, fromId: string, toId: string): OracleDecimal | 'INVALID' {
  const [f, t, v] = [ORACLE_UNITS.get(fromId)!, ORACLE_UNITS.get(toId)!, new Oracle(value)];
  if (f.kind === 'affine' && v.plus(f.offset).lt(0)) return 'INVALID';
  if ((f.kind === 'reciprocal' || t.kind === 'reciprocal') && v.isZero()) return 'INVALID';
  if (f.kind === 'reciprocal' && t.kind === 'reciprocal') return t.n.times(f.d).times(v).div(t.d.times(f.n));
  if (f.kind === 'reciprocal') return f.n.times(t.d).div(f.d.times(v).times(t.n));
  if (t.kind === 'reciprocal') return t.n.times(f.d).div(t.d.times(v).times(f.n));
  const num = v.plus(f.offset).times(f.n).times(t.d);
  const den = f.d.times(t.n);
  const piPower = f.piPower - t.piPower; // cancels for radian <-> milliradian, as it does exactly
  if (piPower === 0) return num.minus(t.offset.times(den)).div(den);
  return piPower > 0 ? num.times(PI).div(den) : num.div(den.times(PI));
}

/** What convertUnits answers: the result value, or 'INVALID' for INVALID_REQUEST on value. */
function actual(value: string, from: string, to: string, decimals?: number, rounding?: RoundingMode): string {
  try {
    return convertUnits({ value, from, to, decimals, rounding }).result.value;
  } catch (error) {
    if (error instanceof ApiError && error.code === 'INVALID_REQUEST' && error.param === 'value') return 'INVALID';
    throw error;
  }
}

function expected(value: string, from: string, to: string, decimals?: number, rounding?: RoundingMode): string {
  const exact = oracleConvert(value, from, to);
  return exact === 'INVALID' ? exact : oracleFormat(exact, decimals, rounding);
}

describe.skipIf(!PRESENT)('conversions agree with decimal.js at 200 digits (needs shared/units/catalogue.json)', () => {
  const VALUES = ['1', '-12.345', '0', '0.001', '98765432109876543210.0123456789', '0.0000000000000000000000000000000000000001'];

  it.each(CATEGORIES.map((c) => [c.id, c.units]))('every pair of %s units, on fixed values', (_id, units) => {
    const mismatches: string[] = [];
    for (const from of units)
      for (const to of units)
        for (const value of VALUES) {
          const [got, want] = [actual(value, from, to), expected(value, from, to)];
          if (got !== want) mismatches.push(`${value} ${from} -> ${to}: got ${got}, want ${want}`);
        }
    expect(mismatches).toEqual([]);
  });

  it('random pairs, values, decimals and rounding modes', () => {
    fc.assert(
      fc.property(sameCategoryPair, decimalValue, decimalsOption, roundingMode, ([from, to], value, decimals, mode) => {
        expect(actual(value, from.id, to.id, decimals, mode)).toBe(expected(value, from.id, to.id, decimals, mode));
      }),
      { numRuns: 5000 },
    );
  });
});

describe('units of different categories never convert', () => {
  it('is INCOMPATIBLE_UNITS on param to for any two units of different categories', () => {
    fc.assert(
      fc.property(anyUnit, anyUnit, decimalValue, (from, to, value) => {
        fc.pre(from.category !== to.category);
        expect(() => convertUnits({ value, from: from.id, to: to.id })).toThrow(
          expect.objectContaining({ code: 'INCOMPATIBLE_UNITS', param: 'to' }),
        );
      }),
      { numRuns: 500 },
    );
  });
});
