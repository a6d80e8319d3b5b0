/**
 * A parsed expression as one exact factor and one dimension, plus its canonical name. Everything
 * here depends on the string and the catalogue only (not on rates), so the result can be cached.
 */
import { PiRational } from '../../pi-rational';
import type { UnitDef } from '../catalogue';
import { addScaled, categoryDimension, categoryOfDimension, DIMENSIONLESS, MONEY, type Dimension } from '../dimensions';
import { formatDecimal } from '../../decimal';
import { unitNumbers } from '../factors';
import { findCategory, findUnit, unitsOfCategory } from '../lookup';
import { expressionError } from './errors';
import { MAX_EXPONENT } from './limits';
import { CURRENCY_SHAPE, type Atom } from './names';
import type { Term } from './parse';

/** What a compound expression's `category` says when no one category has its dimension. */
export const DERIVED = 'derived';

interface Compiled {
  /** The expression as sent. */
  readonly source: string;
  /** Catalogue ids and currency codes joined by "*" and "/", with "^n" (see canonicalName). */
  readonly canonical: string;
  readonly dimension: Dimension;
  /** The category of that dimension, or DERIVED. */
  readonly category: string;
}

/** A string that is one catalogue unit: it converts as that unit does today, whatever its kind. */
export interface WholeUnit extends Compiled {
  readonly kind: 'unit';
  readonly unit: UnitDef;
}

export interface Compound extends Compiled {
  readonly kind: 'compound';
  /** The product of its catalogue units' factors, in base units (dimensions.ts), π kept as a symbol. */
  readonly unitFactor: PiRational;
  /** Merged exponents of its currency codes, by code; their factors come from the rates. */
  readonly currencies: readonly { readonly code: string; readonly exponent: number }[];
  /** Names, in written order, that only the rate table can settle: unknown names, currency codes, and units written like one. */
  readonly pending: readonly Atom[];
}

export type CompiledExpression = WholeUnit | Compound;

export function wholeUnit(source: string, unit: UnitDef): WholeUnit {
  const { dimension } = categoryDimension(unit.category);
  return { kind: 'unit', source, unit, canonical: unit.id, dimension, category: unit.category };
}

/**
 * A unit's factor in base units raised to `exponent` (|exponent| <= MAX_EXPONENT), computed once
 * per unit and exponent: at most units × (2·MAX_EXPONENT + 1) entries, whatever callers send.
 */
const unitPowers = new Map<UnitDef, (PiRational | undefined)[]>();

export function unitPower(unit: UnitDef, exponent: number): PiRational {
  if (!Number.isInteger(exponent) || Math.abs(exponent) > MAX_EXPONENT)
    throw new RangeError(`unitPower: exponent ${exponent} is out of range`);
  let row = unitPowers.get(unit);
  if (row === undefined) unitPowers.set(unit, (row = []));
  const index = exponent + MAX_EXPONENT;
  let raised = row[index];
  if (raised === undefined) {
    raised = unitNumbers(unit).symbolic.mul(categoryDimension(unit.category).baseFactor).pow(exponent);
    row[index] = raised;
  }
  return raised;
}

/** Only linear scales multiply: K and °R, whose zero is absolute zero, are linear as well. */
function refuseInCompound(param: string, source: string, atom: Atom & { kind: 'unit' }): void {
  const { unit, text } = atom;
  if (unit.kind === 'reciprocal') {
    throw expressionError(
      param,
      source,
      `'${text}' (${unit.id}) is a reciprocal unit, which cannot be part of an expression; convert it alone, ` +
        'to another unit of its category or to an expression such as mi/gal',
    );
  }
  if (unit.kind === 'affine' && !unitNumbers(unit).offset.isZero()) {
    const difference = differenceUnit(unit);
    const step = formatDecimal(unitNumbers(unit).factor.div(unitNumbers(difference).factor));
    throw expressionError(
      param,
      source,
      `'${text}' (${unit.id}) cannot be part of an expression, because its zero is not absolute zero: ` +
        `${unit.symbol}/min would mix up temperatures and temperature differences; write temperature differences in ${difference.symbol} ` +
        `(a difference of 1 ${unit.symbol} is ${step} ${difference.symbol}), as in ${difference.symbol}/min`,
    );
  }
}

/**
 * The absolute scale whose degree is the same size as `unit`'s (°C: K, °F: °R), where differences
 * of `unit` are written without its offset; the category's base unit (K) when none is.
 */
function differenceUnit(unit: UnitDef): UnitDef {
  const absolute = unitsOfCategory(unit.category).filter((u) => u.kind !== 'reciprocal' && unitNumbers(u).offset.isZero());
  return absolute.find((u) => unitNumbers(u).factor.equals(unitNumbers(unit).factor)) ?? findUnit(findCategory(unit.category)!.baseUnit)!;
}

export function compileTerms(source: string, param: string, terms: readonly Term[]): Compound {
  const merged = new Map<string, { atom: Atom; exponent: number }>();
  const pending: Atom[] = [];
  for (const { atom, exponent } of terms) {
    if (atom.kind === 'unit') refuseInCompound(param, source, atom);
    if (atom.kind !== 'unit' || CURRENCY_SHAPE.test(atom.text)) pending.push(atom);
    const key = atom.kind === 'unit' ? atom.unit.id : atom.kind === 'currency' ? atom.code : `?${merged.size}`;
    const entry = merged.get(key);
    if (entry === undefined) merged.set(key, { atom, exponent });
    else entry.exponent += exponent;
  }
  let dimension = DIMENSIONLESS;
  let unitFactor = PiRational.ONE;
  const currencies: { code: string; exponent: number }[] = [];
  const parts: { name: string; exponent: number }[] = [];
  for (const [key, { atom, exponent }] of merged) {
    if (exponent === 0 || atom.kind === 'unknown') continue;
    if (Math.abs(exponent) > MAX_EXPONENT) {
      throw expressionError(
        param,
        source,
        `${key} comes to the power ${exponent} in all, out of range (exponents are integers from -${MAX_EXPONENT} to ${MAX_EXPONENT})`,
      );
    }
    parts.push({ name: key, exponent });
    if (atom.kind === 'unit') {
      dimension = addScaled(dimension, categoryDimension(atom.unit.category).dimension, exponent);
      unitFactor = unitFactor.mul(unitPower(atom.unit, exponent));
    } else if (atom.kind === 'currency') {
      dimension = addScaled(dimension, MONEY, exponent);
      currencies.push({ code: atom.code, exponent });
    }
  }
  const category = categoryOfDimension(dimension) ?? DERIVED;
  return { kind: 'compound', source, canonical: canonicalName(parts), dimension, category, unitFactor, currencies, pending };
}

/**
 * The canonical form: names sorted by code point (so currency codes come first), those with a
 * positive exponent, then "/" and the others, in parentheses when more than one:
 * "kilogram*meter/second^2", "USD/megawatt_hour", "1/(meter*second)"; "1" when nothing remains.
 * Equal products have one canonical form, and it parses back to the same factor and dimension.
 */
export function canonicalName(parts: readonly { name: string; exponent: number }[]): string {
  const sorted = [...parts].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const show = (name: string, e: number): string => (e === 1 ? name : `${name}^${e}`);
  const up = sorted.filter((p) => p.exponent > 0).map((p) => show(p.name, p.exponent));
  const down = sorted.filter((p) => p.exponent < 0).map((p) => show(p.name, -p.exponent));
  const numerator = up.length === 0 ? '1' : up.join('*');
  if (down.length === 0) return numerator;
  return `${numerator}/${down.length === 1 ? down[0] : `(${down.join('*')})`}`;
}
