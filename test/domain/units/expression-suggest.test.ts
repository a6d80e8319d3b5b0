import { describe, expect, it } from 'vitest';
import { suggestUnits } from '../../../src/domain/units/expression';
import { allowedDistance, editDistance } from '../../../src/domain/units/expression/suggest';

const chars = (s: string) => Array.from(s);

describe('edit distance (optimal string alignment)', () => {
  it.each([
    ['', '', 0],
    ['a', '', 1],
    ['kilometr', 'kilometer', 1],
    ['kilomteer', 'kilometer', 1],
    ['kilomtere', 'kilometer', 2],
    ['gramm', 'gram', 1],
    ['abc', 'cba', 2],
    ['ca', 'abc', 3],
    ['µm', 'um', 1],
    ['m³', 'm3', 1],
  ])('%j to %j is %i', (a, b, d) => {
    expect(editDistance(chars(a), chars(b), 10)).toBe(d);
    expect(editDistance(chars(b), chars(a), 10)).toBe(d);
  });

  it('stops at limit + 1', () => {
    expect(editDistance(chars('zzzzzzzz'), chars('kilometer'), 2)).toBe(3);
    expect(editDistance(chars('a'), chars('abcdef'), 2)).toBe(3);
  });

  it.each([
    [1, 0],
    [2, 0],
    [3, 1],
    [5, 1],
    [6, 2],
    [9, 2],
    [10, 3],
    [40, 3],
  ])('a name of %i characters allows %i edits', (n, d) => {
    expect(allowedDistance(n)).toBe(d);
  });
});

describe('suggestions for an unknown name', () => {
  it.each([
    ['kilometr', ['kilometer']],
    ['kilometrs', ['kilometers (kilometer)']],
    ['gramm', ['gram']],
    ['Km', ['km (kilometer)']],
    ['mw', ['mW (milliwatt)', 'MW (megawatt)']],
    ['kwhr', ['kwh (kilowatt_hour)']],
    ['metr', ['meter']],
    ['celcius', ['celsius']],
    ['mililiter', ['milliliter']],
    ['squaremeter', ['square_meter']],
    ['ozz', ['oz (ounce)', 'ozt (troy_ounce)', 'ozf (ounce_force)']],
    ['secnd', ['second']],
    ['fahrenheight', ['fahrenheit']],
    ['galon', ['gallon (gallon_us)']],
    ['x', []],
    ['zorkmid', []],
    ['k'.repeat(41), []],
  ])('%j: %j', (name, expected) => {
    expect(suggestUnits(name)).toEqual(expected);
  });

  it('gives at most three, one per unit, nearest first, in a fixed order', () => {
    const got = suggestUnits('mim');
    expect(got.length).toBeLessThanOrEqual(3);
    expect(new Set(got.map((s) => s.replace(/ \(.*\)$/, ''))).size).toBe(got.length);
    expect(suggestUnits('mim')).toEqual(got);
  });
});
