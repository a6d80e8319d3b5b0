/** fast-check generators shared by the conversion property and oracle tests. */
import fc from 'fast-check';
import { ROUNDING_MODES } from '../../../src/domain/decimal';
import { CATEGORIES, UNITS, type UnitDef } from '../../../src/domain/units/catalogue';

const digits = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });
const sign = fc.constantFrom('', '-');

/** Contract decimals of every shape: everyday, tiny, huge, and the full 40+40 digits. */
export const decimalValue = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }).map(String),
  fc.tuple(sign, digits(1, 6), digits(1, 6)).map(([s, i, f]) => `${s}${i}.${f}`),
  fc.tuple(sign, fc.integer({ min: 0, max: 38 }), digits(1, 2)).map(([s, zeros, d]) => `${s}0.${'0'.repeat(zeros)}${d}`),
  fc.tuple(sign, digits(40, 40)).map(([s, i]) => `${s}${i}`),
  fc.tuple(sign, digits(1, 40), digits(1, 40)).map(([s, i, f]) => `${s}${i}.${f}`),
);

export const anyUnit = fc.constantFrom(...UNITS);

const unitsOf = (category: string): UnitDef[] => UNITS.filter((u) => u.category === category);

/** Two units of one category (possibly the same). */
export const sameCategoryPair = fc
  .constantFrom(...CATEGORIES.map((c) => c.id))
  .chain((id) => fc.tuple(fc.constantFrom(...unitsOf(id)), fc.constantFrom(...unitsOf(id))));

export const decimalsOption = fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined });
export const roundingMode = fc.constantFrom(...ROUNDING_MODES);
