import type { CurrencyEntry } from '../domain/currency/registry';
import type { SupportedLanguage } from '../domain/language/supported';
import { currencyNamer, type LocalizedName } from '../domain/names/localized';
import { CLDR_UNIT_NAMES } from '../domain/names/cldr-unit-names';
import { countText, nameKey, parseUnitNames, searchableNames, singularName, type UnitName } from '../domain/names/unit-names';
import { findUnit, UNITS, type CategoryDef, type UnitDef } from '../domain/units';

/** The names of one language: the catalogue's units and categories, the registry's currencies. */
export interface LanguageNames {
  readonly language: SupportedLanguage;
  unit(unit: UnitDef): LocalizedName;
  category(category: CategoryDef): LocalizedName;
  currency(entry: CurrencyEntry): LocalizedName;
  /** A value with its unit's name as a count (`2 Meter`); null when CLDR has no name for the unit. */
  count(unitId: string, value: string): string | null;
  /** The unit an id, symbol or alias names (any language), else the unit this language's name, or one of its counted forms, names. */
  findUnit(text: string): UnitDef | undefined;
  /** The currencies whose name in this language (or English name, where ICU has none) is `text`, any case. */
  findCurrencies(registry: readonly CurrencyEntry[], text: string): CurrencyEntry[];
}

/** A catalogue entry or a currency with the names of the language its answer is in. */
export type Named<T> = T & { readonly names: LanguageNames };

export function named<T extends object>(value: T, names: LanguageNames): Named<T> {
  return { ...value, names };
}

export interface Names {
  /** One language's names, parsed from the generated CLDR data on first use and kept (at most one entry per supported language). */
  of(language: SupportedLanguage): LanguageNames;
}

/** One language's unit names, as CLDR has them: read once per language, on its first use. */
export type UnitNamesReader = (language: SupportedLanguage) => ReadonlyMap<string, UnitName>;

/** Parses the language's entry of the generated module (`npm run names:generate`, from CLDR's data). */
export const readUnitNames: UnitNamesReader = (language) => parseUnitNames(CLDR_UNIT_NAMES[language]);

export function createNames(read: UnitNamesReader = readUnitNames): Names {
  const loaded = new Map<SupportedLanguage, LanguageNames>();
  return {
    of(language) {
      let names = loaded.get(language);
      if (names === undefined) {
        names = languageNames(language, read(language));
        loaded.set(language, names);
      }
      return names;
    },
  };
}

function languageNames(language: SupportedLanguage, units: ReadonlyMap<string, UnitName>): LanguageNames {
  const english = language === 'en' || language === 'en-GB';
  const fallback = (text: string): LocalizedName => ({ text, language: english ? language : 'en', localized: english });
  const byName = new Map<string, UnitDef>();
  // Catalogue order: where two units share a name in a language, the first keeps it.
  for (const unit of UNITS) {
    const name = units.get(unit.id);
    if (name === undefined) continue;
    for (const text of searchableNames(name)) {
      const key = nameKey(language, text);
      if (key !== '' && !byName.has(key)) byName.set(key, unit);
    }
  }
  const currencyName = currencyNamer(language);
  const currencyNames = new Map<string, string | undefined>();
  const currencyNameOf = (code: string) => {
    if (!currencyNames.has(code)) currencyNames.set(code, currencyName(code));
    return currencyNames.get(code);
  };
  return {
    language,
    unit: (unit) => {
      const name = units.get(unit.id);
      if (name === undefined) return fallback(unit.name);
      // English names a unit in the singular, as `name` does; CLDR's English display name is a plural.
      return { text: (english ? singularName(name) : undefined) ?? name.displayName, language, localized: true };
    },
    // CLDR names units, not quantities: a category keeps this API's English name.
    category: (category) => fallback(category.name),
    currency: (entry) => {
      const name = currencyNameOf(entry.code);
      return name === undefined ? fallback(entry.name) : { text: name, language, localized: true };
    },
    count: (unitId, value) => {
      const name = units.get(unitId);
      return (name && countText(language, name, value)) ?? null;
    },
    findUnit: (text) => findUnit(text) ?? byName.get(nameKey(language, text)),
    findCurrencies: (registry, text) => {
      const key = nameKey(language, text);
      return registry.filter((entry) => nameKey(language, currencyNameOf(entry.code) ?? entry.name) === key);
    },
  };
}
