/**
 * Dimensions: what a category measures, as exponents of seven base quantities, and what its base
 * unit is worth in the base units of those quantities. Unit expressions multiply units of several
 * categories, so they need both to tell whether `from` and `to` measure the same thing and to
 * compute one exact factor.
 *
 * The base units are meter, kilogram, second, kelvin, byte, degree and euro: the catalogue's own
 * bases, so that every factor stays the catalogue's exact one (the degree, not the radian, is the
 * base of plane angle for that reason; the euro because ECB rates are quoted per euro).
 */
import { Rational } from '../rational';
import { CATEGORIES, type UnitDef } from './catalogue';

export const BASE_QUANTITIES = ['length', 'mass', 'time', 'temperature', 'data', 'angle', 'money'] as const;
export type BaseQuantity = (typeof BASE_QUANTITIES)[number];

/** One integer exponent per base quantity, in BASE_QUANTITIES order. */
export type Dimension = readonly number[];

type Exponents = Partial<Record<BaseQuantity, number>>;

function dimensionOf(exponents: Exponents): Dimension {
  return BASE_QUANTITIES.map((q) => exponents[q] ?? 0);
}

interface CategoryDimension {
  readonly dimension: Dimension;
  /** The category's base unit in the base units of its dimension. */
  readonly baseFactor: Rational;
}

/**
 * Every category's dimension. Frequency is time⁻¹ only: the catalogue counts one revolution per
 * minute as 1/60 Hz, so an angle per time (turn/min) is not a frequency. Fuel economy is a length
 * per volume (length⁻²); its base unit, km/L, is 1000 m / 0.001 m³ = 10⁶ m⁻².
 */
const BY_CATEGORY: Readonly<Record<string, { exponents: Exponents; baseFactor?: string }>> = {
  length: { exponents: { length: 1 } },
  mass: { exponents: { mass: 1 } },
  volume: { exponents: { length: 3 } },
  area: { exponents: { length: 2 } },
  temperature: { exponents: { temperature: 1 } },
  time: { exponents: { time: 1 } },
  speed: { exponents: { length: 1, time: -1 } },
  pressure: { exponents: { mass: 1, length: -1, time: -2 } },
  energy: { exponents: { mass: 1, length: 2, time: -2 } },
  power: { exponents: { mass: 1, length: 2, time: -3 } },
  data: { exponents: { data: 1 } },
  angle: { exponents: { angle: 1 } },
  frequency: { exponents: { time: -1 } },
  force: { exponents: { mass: 1, length: 1, time: -2 } },
  fuel_economy: { exponents: { length: -2 }, baseFactor: '1000000' },
};

const CATEGORY_DIMENSIONS = new Map<string, CategoryDimension>(
  CATEGORIES.map((c) => {
    const entry = BY_CATEGORY[c.id];
    if (entry === undefined) throw new Error(`dimensions.ts has no dimension for the category ${c.id}`);
    return [c.id, { dimension: dimensionOf(entry.exponents), baseFactor: Rational.parse(entry.baseFactor ?? '1') }];
  }),
);

export const DIMENSIONLESS: Dimension = dimensionOf({});
export const MONEY: Dimension = dimensionOf({ money: 1 });

export function categoryDimension(categoryId: string): CategoryDimension {
  const found = CATEGORY_DIMENSIONS.get(categoryId);
  if (found === undefined) throw new TypeError(`categoryDimension: ${categoryId} is not a catalogue category`);
  return found;
}

export const dimensionKey = (d: Dimension): string => d.join(',');

/** a + k·b, exponent by exponent. */
export function addScaled(a: Dimension, b: Dimension, k: number): Dimension {
  return a.map((e, i) => e + k * b[i]!);
}

export const sameDimension = (a: Dimension, b: Dimension): boolean => dimensionKey(a) === dimensionKey(b);

const categoryByDimension = new Map<string, string>();
for (const [id, { dimension }] of CATEGORY_DIMENSIONS) {
  const key = dimensionKey(dimension);
  // Two categories with one dimension would make `category` of an expression a guess.
  if (categoryByDimension.has(key)) throw new Error(`dimensions.ts gives ${id} the dimension of ${categoryByDimension.get(key)}`);
  categoryByDimension.set(key, id);
}

/** The one category that measures this dimension, or undefined. */
export function categoryOfDimension(d: Dimension): string | undefined {
  return categoryByDimension.get(dimensionKey(d));
}

const SUPERSCRIPT = '⁰¹²³⁴⁵⁶⁷⁸⁹';
const superscript = (n: number): string =>
  (n < 0 ? '⁻' : '') +
  String(Math.abs(n))
    .split('')
    .map((digit) => SUPERSCRIPT[Number(digit)])
    .join('');

/** "length·time⁻¹", "length²·mass·time⁻²", "dimensionless": for messages. */
export function formatDimension(d: Dimension): string {
  const parts = BASE_QUANTITIES.flatMap((q, i) => {
    const e = d[i]!;
    return e === 0 ? [] : [e === 1 ? q : q + superscript(e)];
  });
  return parts.length === 0 ? 'dimensionless' : parts.join('·');
}

/**
 * What a catalogue unit measures, for messages: its category's dimension, which is what it converts
 * within. A reciprocal unit (L/100 km) counts the inverse of that dimension, which is said too, so
 * that "fuel_economy is length⁻²" does not read as a mistake about litres per kilometre.
 */
export function describeUnitDimension(unit: Pick<UnitDef, 'id' | 'category' | 'kind'>): string {
  const { dimension } = categoryDimension(unit.category);
  const text = formatDimension(dimension);
  if (unit.kind !== 'reciprocal') return text;
  return `${text} (${unit.id} counts its reciprocal, ${formatDimension(dimension.map((e) => -e))})`;
}
