import { describe, expect, it } from 'vitest';
import { CLDR_UNIT_IDS } from '../../../src/domain/names/cldr-units';
import {
  compactUnitNames,
  countText,
  nameKey,
  parseUnitNames,
  searchableNames,
  singularName,
  unitNamesOf,
  type UnitName,
} from '../../../src/domain/names/unit-names';
import { UNITS } from '../../../src/domain/units';

const METER_DE: UnitName = { displayName: 'Meter', patterns: { one: '{0} Meter', other: '{0} Meter' } };
const METRE_GB: UnitName = { displayName: 'metres', patterns: { one: '{0} metre', other: '{0} metres' } };
const METR_CS: UnitName = { displayName: 'metry', patterns: { one: '{0} metr', few: '{0} metry', many: '{0} metru', other: '{0} metrů' } };

describe('the CLDR table names catalogue units only, each CLDR unit once', () => {
  it('every key is a catalogue unit and no CLDR unit is named twice', () => {
    const ids = new Set(UNITS.map((u) => u.id));
    for (const unitId of Object.keys(CLDR_UNIT_IDS)) expect(ids.has(unitId), unitId).toBe(true);
    const cldrIds = Object.values(CLDR_UNIT_IDS);
    expect(new Set(cldrIds).size).toBe(cldrIds.length);
  });
});

describe('unitNamesOf keeps the catalogue units CLDR has, with their nominative count patterns', () => {
  const long = {
    'length-meter': {
      displayName: 'Meter',
      'unitPattern-count-one': '{0} Meter',
      'dative-count-other': '{0} Metern',
      'unitPattern-count-other': '{0} Meter',
      perUnitPattern: '{0} pro Meter',
    },
    'speed-kilometer-per-hour': { displayName: 'Kilometer pro Stunde', 'unitPattern-count-other': '{0} Kilometer pro Stunde' },
    'length-furlong': { displayName: 'Furlong' },
    'mass-gram': { 'unitPattern-count-other': '{0} g' },
  };

  it('maps CLDR ids to catalogue ids and drops the rest of the file', () => {
    const names = unitNamesOf(long);
    expect([...names.keys()]).toEqual(['meter', 'kilometer_per_hour']);
    expect(names.get('meter')).toEqual({ displayName: 'Meter', patterns: { one: '{0} Meter', other: '{0} Meter' } });
  });
});

describe('compact unit names read back as they were written', () => {
  it('keeps every name, every pattern and both orders (units, plural categories)', () => {
    const names = new Map([
      ['meter', METR_CS],
      ['kilometer', { displayName: 'kilometry', patterns: { other: '{0} kilometrů', one: '{0} kilometr' } }],
    ]);
    const read = parseUnitNames(compactUnitNames(names));
    expect(read).toEqual(names);
    expect([...read.keys()]).toEqual(['meter', 'kilometer']);
    expect(Object.keys(read.get('kilometer')!.patterns)).toEqual(['other', 'one']);
  });
});

describe('countText: the plural form of the value, in the language’s number format', () => {
  it.each([
    ['de', METER_DE, '1', '1 Meter'],
    ['de', METER_DE, '2', '2 Meter'],
    ['de', METER_DE, '1234.5', '1.234,5 Meter'],
    ['en-GB', METRE_GB, '1', '1 metre'],
    ['en-GB', METRE_GB, '2', '2 metres'],
    ['en-GB', METRE_GB, '0.5', '0.5 metres'],
    ['cs', METR_CS, '1', '1 metr'],
    ['cs', METR_CS, '3', '3 metry'],
    ['cs', METR_CS, '5', '5 metrů'],
    ['cs', METR_CS, '1.5', '1,5 metru'],
    ['en-GB', METRE_GB, '12345678901234567890.123456789012345678901', '12,345,678,901,234,567,890.123456789012345678901 metres'],
  ] as const)('%s %j %s → %j', (language, name, value, expected) => {
    expect(countText(language, name, value)).toBe(expected);
  });

  it('uses the other pattern when the category has none, and is undefined without patterns', () => {
    expect(countText('cs', { displayName: 'x', patterns: { other: '{0} x' } }, '3')).toBe('3 x');
    expect(countText('de', { displayName: 'x', patterns: {} }, '1')).toBeUndefined();
  });
});

describe('names are looked up by NFKC, language lower case and single spaces', () => {
  it.each([
    ['de', 'Kilometer pro Stunde', 'kilometer pro stunde'],
    ['de', '  KILOMETER   pro\tStunde ', 'kilometer pro stunde'],
    ['tr', 'İNÇ', 'inç'],
    ['ja', 'ｷﾛﾒｰﾄﾙ', 'キロメートル'],
  ] as const)('%s %j → %j', (language, text, key) => {
    expect(nameKey(language, text)).toBe(key);
  });

  it('a unit is found by its display name and each counted form', () => {
    expect(searchableNames(METRE_GB)).toEqual(['metres', 'metre']);
    expect(searchableNames(METR_CS)).toEqual(['metry', 'metr', 'metru', 'metrů']);
  });
});

describe('singularName', () => {
  it.each([
    [{ one: '{0} foot', other: '{0} feet' }, 'foot'],
    [{ one: '{0} metre', other: '{0} metres' }, 'metre'],
    [{ other: '{0} feet' }, undefined],
    [{ one: 'foot' }, undefined],
  ])('%j: %j', (patterns, singular) => {
    expect(singularName({ displayName: 'feet', patterns })).toBe(singular);
  });
});
