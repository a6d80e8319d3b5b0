import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readCldrUnits, renderUnitNamesModule, UNIT_NAMES_MODULE } from '../../../scripts/generate-names';
import { SUPPORTED_LANGUAGES } from '../../../src/domain/language/supported';
import { CLDR_UNIT_NAMES } from '../../../src/domain/names/cldr-unit-names';
import { parseUnitNames, unitNamesOf } from '../../../src/domain/names/unit-names';

describe('the generated unit names are those of cldr-units-full', () => {
  it('the committed module is exactly what scripts/generate-names.ts renders from the package (regenerate with npm run names:generate)', () => {
    expect(readFileSync(UNIT_NAMES_MODULE, 'utf8')).toBe(renderUnitNamesModule());
  });

  it.each(SUPPORTED_LANGUAGES)('%s: every name and count pattern the server serves equals the package’s', (language) => {
    expect(parseUnitNames(CLDR_UNIT_NAMES[language])).toEqual(unitNamesOf(readCldrUnits(language)));
  });

  it('a change in the package fails the comparison', () => {
    const drifted = renderUnitNamesModule((language) => ({
      ...readCldrUnits(language),
      'length-meter': { displayName: 'changed', 'unitPattern-count-other': '{0} changed' },
    }));
    expect(drifted).not.toBe(readFileSync(UNIT_NAMES_MODULE, 'utf8'));
  });
});
