import { describe, expect, it } from 'vitest';
import { CLDR_UNIT_IDS } from '../../src/domain/names/cldr-units';
import { SUPPORTED_LANGUAGES } from '../../src/domain/language/supported';
import { buildRegistry, NO_SPANS } from '../../src/domain/currency/registry';
import { CATEGORIES, getUnit, UNITS } from '../../src/domain/units';
import { readCldrUnits } from '../../scripts/generate-names';
import { createNames, readUnitNames, type UnitNamesReader } from '../../src/services/names';

const names = createNames();
const registry = buildRegistry(NO_SPANS);
const entry = (code: string) => registry.find((e) => e.code === code)!;

describe('unit names come from CLDR (the generated module, held to cldr-units-full)', () => {
  it.each([
    ['de', 'kilometer_per_hour', 'Kilometer pro Stunde'],
    ['de', 'meter', 'Meter'],
    // English names a unit in the singular, as `name` does (CLDR's English display names are plurals).
    ['en-GB', 'meter', 'metre'],
    ['en', 'meter', 'meter'],
    ['en', 'foot', 'foot'],
    ['en-GB', 'foot', 'foot'],
    ['en', 'kilometer_per_hour', 'kilometer per hour'],
    ['fr', 'kilometer_per_hour', 'kilomètres par heure'],
    ['ja', 'kilometer', 'キロメートル'],
  ] as const)('%s %s → %j', (language, unitId, text) => {
    expect(names.of(language).unit(getUnit(unitId))).toEqual({ text, language, localized: true });
  });

  it('every unit of the CLDR table has a name in every supported language', () => {
    for (const language of SUPPORTED_LANGUAGES) {
      const long = readCldrUnits(language);
      for (const [unitId, cldrId] of Object.entries(CLDR_UNIT_IDS))
        expect(long[cldrId]?.displayName, `${language} ${unitId}`).toBeTypeOf('string');
    }
  });

  it('a unit CLDR does not have keeps the English name, said so', () => {
    expect(names.of('de').unit(getUnit('us_survey_foot'))).toEqual({ text: 'US survey foot', language: 'en', localized: false });
    expect(names.of('en-GB').unit(getUnit('us_survey_foot'))).toEqual({ text: 'US survey foot', language: 'en-GB', localized: true });
  });

  it('categories keep their English names: CLDR names units, not quantities', () => {
    expect(names.of('de').category(CATEGORIES[0]!)).toEqual({ text: 'Length', language: 'en', localized: false });
  });

  it(`${Object.keys(CLDR_UNIT_IDS).length} of the ${UNITS.length} catalogue units have CLDR names`, () => {
    const localized = UNITS.filter((u) => names.of('de').unit(u).localized);
    expect(localized.length).toBe(Object.keys(CLDR_UNIT_IDS).length);
    expect(UNITS).toHaveLength(154);
  });
});

describe('counted forms: the plural pattern of the value', () => {
  it.each([
    ['de', 'meter', '1', '1 Meter'],
    ['de', 'meter', '2', '2 Meter'],
    ['en-GB', 'meter', '1', '1 metre'],
    ['en-GB', 'meter', '2', '2 metres'],
    ['de', 'us_survey_foot', '2', null],
  ] as const)('%s %s %s → %j', (language, unitId, value, text) => {
    expect(names.of(language).count(unitId, value)).toBe(text);
  });
});

describe('currency names come from ICU for every currency of the registry', () => {
  it.each([
    ['de', 'CHF', 'Schweizer Franken'],
    ['fr', 'CHF', 'franc suisse'],
    ['ja', 'CHF', new Intl.DisplayNames('ja', { type: 'currency' }).of('CHF')],
    ['de', 'CYP', 'Zypern-Pfund'],
  ] as const)('%s %s → %j', (language, code, text) => {
    expect(names.of(language).currency(entry(code))).toEqual({ text, language, localized: true });
  });

  it('every registry currency has its ICU name in every supported language, and English (flagged) only where ICU has none', () => {
    const missing: string[] = [];
    for (const language of SUPPORTED_LANGUAGES) {
      const icu = new Intl.DisplayNames([language], { type: 'currency', fallback: 'none' });
      for (const e of registry) {
        const name = names.of(language).currency(e);
        if (icu.of(e.code) === undefined) missing.push(`${language} ${e.code}`);
        expect(name.localized, `${language} ${e.code}`).toBe(icu.of(e.code) !== undefined);
      }
    }
    // ICU lacks only a few retired currencies, in a few languages (ICU 78: eleven in Hindi, one in Romanian).
    expect(missing.length).toBeLessThan(20);
    expect(names.of('hi').currency(entry('MTL'))).toEqual({ text: 'Maltese Lira', language: 'en', localized: false });
  });
});

describe('lookup by a localized name, in the language asked for', () => {
  it.each([
    ['de', 'Kilometer pro Stunde', 'kilometer_per_hour'],
    ['de', 'kilometer pro stunde', 'kilometer_per_hour'],
    ['de', 'Meter', 'meter'],
    ['en-GB', 'metres', 'meter'],
    ['ja', 'キロメートル', 'kilometer'],
    ['de', 'km/h', 'kilometer_per_hour'],
  ] as const)('%s %j → %s', (language, text, unitId) => {
    expect(names.of(language).findUnit(text)?.id).toBe(unitId);
  });

  it('a name of another language is not found', () => {
    expect(names.of('fr').findUnit('Kilometer pro Stunde')).toBeUndefined();
  });

  it.each([
    ['de', 'Schweizer Franken', ['CHF']],
    ['de', 'schweizer franken', ['CHF']],
    ['fr', 'Schweizer Franken', []],
    ['fr', 'franc suisse', ['CHF']],
  ] as const)('currencies: %s %j → %j', (language, text, codes) => {
    expect(
      names
        .of(language)
        .findCurrencies(registry, text)
        .map((e) => e.code),
    ).toEqual(codes);
  });
});

describe('the data is read once per language', () => {
  it('reads a language on first use only', () => {
    const reads: string[] = [];
    const read: UnitNamesReader = (language) => {
      reads.push(language);
      return readUnitNames(language);
    };
    const counted = createNames(read);
    counted.of('de').unit(getUnit('meter'));
    counted.of('de').unit(getUnit('kilometer'));
    counted.of('fr');
    expect(reads).toEqual(['de', 'fr']);
  });
});
