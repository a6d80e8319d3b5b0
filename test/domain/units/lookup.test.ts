import { describe, expect, it } from 'vitest';
import { ALIASES } from '../../../src/domain/units/aliases';
import { CATEGORIES, UNITS } from '../../../src/domain/units/catalogue';
import { aliasesOf, findCategory, findUnit, unitsOfCategory } from '../../../src/domain/units/lookup';

/** Every code the ECB has quoted: a batch item whose from and to are two of these is a currency conversion. */
const ECB_CODES = (
  'USD JPY BGN CYP CZK DKK EEK GBP HUF LTL LVL MTL PLN ROL RON SEK SIT SKK CHF ISK NOK HRK RUB TRL TRY ' +
  'AUD BRL CAD CNY HKD IDR ILS INR KRW MXN MYR NZD PHP SGD THB ZAR EUR'
).split(' ');
const ALL_ALIASES = Object.entries(ALIASES).flatMap(([id, aliases]) => aliases.map((alias) => ({ id, alias })));

describe('findUnit: id in any case, then symbol in exact case, then alias in any case', () => {
  it.each(UNITS.map((u) => [u.id, u.symbol]))('finds %s by its id in any case and by its symbol %j', (id, symbol) => {
    for (const token of [id, id.toUpperCase(), id[0]!.toUpperCase() + id.slice(1), symbol]) {
      expect(findUnit(token)?.id, token).toBe(id);
    }
  });

  it.each([
    ['feet', 'foot'],
    ['FEET', 'foot'],
    ['ft', 'foot'],
    ['in', 'inch'],
    ['lbs', 'pound'],
    ['°C', 'celsius'],
    ['degC', 'celsius'],
    ['DEGF', 'fahrenheit'],
    ['km/h', 'kilometer_per_hour'],
    ['KPH', 'kilometer_per_hour'],
    ['mph', 'mile_per_hour'],
    ['PSI', 'psi'],
    ['kWh', 'kilowatt_hour'],
    ['KWH', 'kilowatt_hour'],
    ['µm', 'micrometer'],
    ['um', 'micrometer'],
    ['metre', 'meter'],
    ['Litres', 'liter'],
    ['gramme', 'gram'],
    ['L/100 km', 'liter_per_100_kilometers'],
    ['MB', 'megabyte'],
    ['mbar', 'millibar'],
    ['mW', 'milliwatt'],
    ['MW', 'megawatt'],
    ['Hz', 'hertz'],
    ['HERTZ', 'hertz'],
  ])('reads %j as %s', (token, id) => {
    expect(findUnit(token)?.id).toBe(id);
  });

  it.each(['mb', 'mw', 'KM', 'IN', 'hZ', ' meter', 'meter ', 'in ', 'USD', '', 'meter\n', 'constructor', '__proto__'])(
    'does not know %j (symbols are case-sensitive; tokens are not trimmed)',
    (token) => {
      expect(findUnit(token)).toBeUndefined();
    },
  );
});

describe('aliases are few and unambiguous', () => {
  const ids = new Set(UNITS.map((u) => u.id));

  it('are keyed by unit ids', () => {
    expect(Object.keys(ALIASES).filter((id) => !ids.has(id))).toEqual([]);
  });

  it('are unique across all units, case-insensitively', () => {
    const seen = new Map<string, string>();
    const clashes = ALL_ALIASES.filter(({ alias, id }) => {
      const other = seen.get(alias.toLowerCase());
      seen.set(alias.toLowerCase(), id);
      return other !== undefined;
    });
    expect(clashes).toEqual([]);
  });

  it("never equal a unit id (any case) or another unit's symbol (any case)", () => {
    const clashes = ALL_ALIASES.filter(({ id, alias }) =>
      UNITS.some((u) => u.id === alias.toLowerCase() || (u.id !== id && u.symbol.toLowerCase() === alias.toLowerCase())),
    );
    expect(clashes).toEqual([]);
  });

  it('never equal a currency code the ECB has quoted, and neither do ids or symbols', () => {
    const tokens = [...ALL_ALIASES.map((a) => a.alias), ...UNITS.map((u) => u.id), ...UNITS.map((u) => u.symbol)];
    expect(tokens.filter((t) => ECB_CODES.includes(t.toUpperCase()))).toEqual([]);
  });

  it('never have surrounding spaces', () => {
    expect(ALL_ALIASES.filter(({ alias }) => alias.trim() !== alias || alias === '')).toEqual([]);
  });

  it.each(ALL_ALIASES.map(({ id, alias }) => [alias, id]))('%s finds %s in any case', (alias, id) => {
    for (const token of [alias, alias.toUpperCase(), alias.toLowerCase()]) expect(findUnit(token)?.id, token).toBe(id);
  });
});

describe('aliasesOf, findCategory and unitsOfCategory', () => {
  it('lists aliases by canonical id in any case, and none for unknown ids', () => {
    expect(aliasesOf('meter')).toEqual(['meters', 'metre', 'metres']);
    expect(aliasesOf('METER')).toEqual(aliasesOf('meter'));
    expect([aliasesOf('hertz'), aliasesOf('constructor'), aliasesOf('nope')]).toEqual([[], [], []]);
  });

  it('finds categories by id in any case', () => {
    expect(findCategory('LENGTH')?.id).toBe('length');
    expect(findCategory('Fuel_Economy')?.baseUnit).toBe('kilometer_per_liter');
    expect([findCategory('lengths'), findCategory('constructor')]).toEqual([undefined, undefined]);
  });

  it.each(CATEGORIES.map((c) => [c.id, c.units]))('lists the units of %s in catalogue order', (id, units) => {
    expect(unitsOfCategory(id).map((u) => u.id)).toEqual(units);
    expect(unitsOfCategory(id.toUpperCase()).map((u) => u.id)).toEqual(units);
  });

  it('lists no units for an unknown category', () => {
    expect(unitsOfCategory('nope')).toEqual([]);
  });
});
