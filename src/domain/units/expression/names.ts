/**
 * What a name inside an expression stands for: a catalogue unit (today's lookup rules), a currency
 * code (three upper-case letters that are no unit), the number 1 (as in 1/s), or nothing known.
 */
import { ALIASES } from '../aliases';
import { UNITS, type UnitDef } from '../catalogue';
import { findUnit } from '../lookup';
import { findPrefixedUnit } from '../prefixes';

export type Atom =
  | { readonly kind: 'unit'; readonly unit: UnitDef; readonly text: string }
  | { readonly kind: 'currency'; readonly code: string }
  | { readonly kind: 'unknown'; readonly text: string }
  | { readonly kind: 'one' }
  | { readonly kind: 'number'; readonly text: string };

/**
 * Currencies are upper-case only inside an expression: lower-case three-letter names are units
 * (bar, cup, erg, kip, mil, day), so reading "usd" as a currency would be a guess.
 */
export const CURRENCY_SHAPE = /^[A-Z]{3}$/;
const NUMBER = /^\d+(\.\d+)?$/;

export function classifyName(text: string): Atom {
  const unit = findUnit(text);
  if (unit !== undefined) return { kind: 'unit', unit, text };
  if (CURRENCY_SHAPE.test(text)) return { kind: 'currency', code: text };
  const prefixed = findPrefixedUnit(text);
  if (prefixed !== undefined) return { kind: 'unit', unit: prefixed, text };
  if (text === '1') return { kind: 'one' };
  if (NUMBER.test(text)) return { kind: 'number', text };
  return { kind: 'unknown', text };
}

interface WholeName {
  readonly text: string;
  readonly unit: UnitDef;
  /** Symbols match in their case, ids and aliases in any case (the lookup rules). */
  readonly caseSensitive: boolean;
}

/**
 * Names the tokenizer must read whole, because its separators would split them: symbols with a
 * space or parentheses ("fl oz", "oz t", "imp gal", "mpg (US)") and every name of a reciprocal
 * unit with a slash ("L/100 km", "l/100km"), which is then refused by name rather than read as
 * litres per a number. Other names with a slash, a superscript or "·" (m/s, km/h, m³, ft·lbf) read
 * the same as the operators they contain (a test checks it), so they need no entry.
 */
function needsWholeMatch(name: string, unit: UnitDef): boolean {
  return /[ \t()]/.test(name) || (unit.kind === 'reciprocal' && name.includes('/'));
}

export const WHOLE_NAMES: readonly WholeName[] = UNITS.flatMap((unit) => [
  { text: unit.symbol, unit, caseSensitive: true },
  ...[unit.id, ...(ALIASES[unit.id] ?? [])].map((text) => ({ text, unit, caseSensitive: false })),
])
  .filter((n) => needsWholeMatch(n.text, n.unit))
  .sort((a, b) => b.text.length - a.text.length);

/** The longest whole name at `start` that ends where a name may end, or undefined. */
export function matchWholeName(source: string, start: number, endsName: (index: number) => boolean): WholeName | undefined {
  for (const name of WHOLE_NAMES) {
    const end = start + name.text.length;
    if (end > source.length || !endsName(end)) continue;
    const slice = source.slice(start, end);
    if (name.caseSensitive ? slice === name.text : slice.toLowerCase() === name.text.toLowerCase()) return name;
  }
  return undefined;
}
