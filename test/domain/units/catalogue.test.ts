import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CATALOGUE_JSON, CATALOGUE_MODULE, exactFactor, readCatalogueJson, renderCatalogue } from '../../../scripts/generate-catalogue';
import { formatDecimal } from '../../../src/domain/decimal';
import { Rational } from '../../../src/domain/rational';
import { CATEGORIES, UNITS } from '../../../src/domain/units/catalogue';
import { parseFactor } from '../../../src/domain/units/factors';
import { sharedDataPresent } from '../../helpers/shared-data';

const UNIT_COUNTS: Record<string, number> = {
  length: 16,
  mass: 14,
  volume: 18,
  area: 10,
  temperature: 5,
  time: 12,
  speed: 5,
  pressure: 12,
  energy: 13,
  power: 9,
  data: 14,
  angle: 7,
  frequency: 6,
  force: 8,
  fuel_economy: 5,
};

describe("the catalogue holds the contract's 15 categories and 154 units", () => {
  it('has 15 categories and 154 units with unique ids and symbols', () => {
    expect(CATEGORIES).toHaveLength(15);
    expect(UNITS).toHaveLength(154);
    expect(new Set(UNITS.map((u) => u.id)).size).toBe(154);
    expect(new Set(UNITS.map((u) => u.symbol)).size).toBe(154);
    expect(UNITS.every((u) => /^[a-z0-9_]+$/.test(u.id))).toBe(true);
  });

  it.each(Object.entries(UNIT_COUNTS))('%s has %i units, listed in catalogue order', (id, count) => {
    const category = CATEGORIES.find((c) => c.id === id);
    expect(category?.units).toHaveLength(count);
    expect(UNITS.filter((u) => u.category === id).map((u) => u.id)).toEqual(category?.units);
  });

  it.each(CATEGORIES.map((c) => [c.id, c.baseUnit]))('the base unit of %s (%s) has factor 1 and offset 0', (id, base) => {
    const unit = UNITS.find((u) => u.id === base);
    expect([unit?.category, unit?.factor, unit?.offset]).toEqual([id, '1', '0']);
  });

  it('marks only radian and milliradian inexact, and only temperatures affine', () => {
    expect(UNITS.filter((u) => !u.exact).map((u) => u.id)).toEqual(['radian', 'milliradian']);
    expect(UNITS.filter((u) => u.kind === 'affine').every((u) => u.category === 'temperature')).toBe(true);
    expect(UNITS.filter((u) => u.kind === 'reciprocal').map((u) => u.id)).toEqual(['liter_per_100_kilometers', 'gallon_us_per_100_miles']);
  });

  it('gives every factor as an exact fraction (or a multiple of 1/pi) and a positive value', () => {
    for (const unit of UNITS) {
      expect(parseFactor(unit.factor).sign(), unit.id).toBe(1);
      expect(() => Rational.parse(unit.offset), unit.id).not.toThrow();
    }
  });
});

describe.skipIf(!sharedDataPresent(CATALOGUE_JSON))(
  'the generated module matches shared/units/catalogue.json (skipped when the shared file is absent)',
  () => {
    const json = existsSync(CATALOGUE_JSON) ? readCatalogueJson() : { categories: [], units: [] };

    it('is exactly what scripts/generate-catalogue.ts renders (regenerate with npx tsx scripts/generate-catalogue.ts)', () => {
      expect(readFileSync(CATALOGUE_MODULE, 'utf8')).toBe(renderCatalogue(json));
    });

    it.each(json.categories.map((c, i) => [c.id, c, i] as const))('category %s matches field by field', (_id, c, i) => {
      expect(CATEGORIES[i]).toEqual({ id: c.id, name: c.name, baseUnit: c.base_unit, units: c.units });
      expect(c.units).toHaveLength(c.unit_count);
    });

    it.each(json.units.map((u, i) => [u.id, u, i] as const))('unit %s matches field by field', (_id, u, i) => {
      const unit = UNITS[i]!;
      expect(unit).toEqual({
        id: u.id,
        name: u.name,
        symbol: u.symbol,
        category: u.category,
        kind: u.kind,
        factor: exactFactor(u),
        offset: u.kind === 'affine' ? u.offset : '0',
        exact: u.exact,
        definition: u.definition,
      });
      // The exact factor printed to 40 significant digits is the catalogue's own factor_decimal.
      expect(formatDecimal(parseFactor(unit.factor))).toBe(u.factor_decimal);
    });
  },
);
