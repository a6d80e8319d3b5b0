import type { SupportedLanguage } from '../language/supported';
import { CLDR_UNIT_IDS } from './cldr-units';

/** A unit's entry in a CLDR locale's `units.long`, as far as this API reads it. */
export interface CldrUnitEntry {
  readonly displayName?: string;
  /** `unitPattern-count-one`, `unitPattern-count-other`, …: the nominative pattern of each plural category. */
  readonly [key: string]: string | undefined;
}

/** A unit's name in one language: its display name and, per plural category, the pattern of a count (`{0} Meter`). */
export interface UnitName {
  readonly displayName: string;
  readonly patterns: Readonly<Partial<Record<Intl.LDMLPluralRule, string>>>;
}

const PATTERN_PREFIX = 'unitPattern-count-';

/**
 * The name of one unit, from the pattern of a count of one ("{0} foot": "foot"). English CLDR
 * display names are plurals ("feet", "meters"), where this API's English names are singular
 * ("foot"); undefined when the pattern is not the count and a name.
 */
export function singularName(name: UnitName): string | undefined {
  const one = name.patterns.one;
  if (one === undefined || !one.includes('{0}')) return undefined;
  const text = one.replace('{0}', '').trim();
  return text === '' ? undefined : text;
}

/**
 * The names of the catalogue's units that CLDR has, from one locale's `units.long` (only the
 * catalogue's units are kept, only the nominative patterns: the rest of the file is dropped).
 */
export function unitNamesOf(long: Readonly<Record<string, CldrUnitEntry | undefined>>): Map<string, UnitName> {
  const names = new Map<string, UnitName>();
  for (const [unitId, cldrId] of Object.entries(CLDR_UNIT_IDS)) {
    const entry = long[cldrId];
    if (entry?.displayName === undefined) continue;
    const patterns: Partial<Record<Intl.LDMLPluralRule, string>> = {};
    for (const [key, value] of Object.entries(entry)) {
      if (key.startsWith(PATTERN_PREFIX) && value !== undefined) patterns[key.slice(PATTERN_PREFIX.length) as Intl.LDMLPluralRule] = value;
    }
    names.set(unitId, { displayName: entry.displayName, patterns });
  }
  return names;
}

/** A unit's name as the generated module stores it: the display name and the count patterns. */
type CompactUnitName = readonly [displayName: string, patterns: UnitName['patterns']];

/** One language's unit names as compact JSON (unit id → [display name, count patterns]), in the map's order. */
export function compactUnitNames(names: ReadonlyMap<string, UnitName>): string {
  const entries: Record<string, CompactUnitName> = {};
  for (const [unitId, name] of names) entries[unitId] = [name.displayName, name.patterns];
  return JSON.stringify(entries);
}

/** The unit names `compactUnitNames` wrote, in the order it wrote them. */
export function parseUnitNames(compact: string): Map<string, UnitName> {
  const entries = JSON.parse(compact) as Record<string, CompactUnitName>;
  return new Map(Object.entries(entries).map(([unitId, [displayName, patterns]]) => [unitId, { displayName, patterns }]));
}

/**
 * A value with its unit's name as the language writes a count (`2 Meter`, `1 metre`): the plural
 * category of the value (Intl.PluralRules), the number in the language's digits and separators,
 * every digit of the decimal kept. Undefined when the unit has no pattern for it.
 */
export function countText(language: SupportedLanguage, name: UnitName, value: string): string | undefined {
  const { plural, number } = countFormatsOf(language);
  // Both take the decimal string as it is (ECMA-402's Intl mathematical value): no float rounding.
  const pattern = name.patterns[plural.select(value as unknown as number)] ?? name.patterns.other;
  return pattern?.replace('{0}', number.format(value as unknown as number));
}

/** One PluralRules and NumberFormat per supported language, made on first use. */
const countFormats = new Map<SupportedLanguage, { plural: Intl.PluralRules; number: Intl.NumberFormat }>();

function countFormatsOf(language: SupportedLanguage) {
  let formats = countFormats.get(language);
  if (formats === undefined) {
    formats = { plural: new Intl.PluralRules(language), number: new Intl.NumberFormat(language, { maximumFractionDigits: 100 }) };
    countFormats.set(language, formats);
  }
  return formats;
}

/**
 * The form a name is looked up by: Unicode NFKC, lower case in the language's rules, runs of white
 * space as one space, trimmed. `Kilometer pro Stunde` and `kilometer  pro stunde` are one key.
 */
export function nameKey(language: SupportedLanguage, text: string): string {
  return text.normalize('NFKC').toLocaleLowerCase(language).replace(/\s+/gu, ' ').trim();
}

/** The words of a unit's name a search finds it by: the display name and each count pattern without its number. */
export function searchableNames(name: UnitName): string[] {
  const forms = Object.values(name.patterns).map((pattern) => pattern.replace('{0}', '').trim());
  return [...new Set([name.displayName, ...forms])];
}
