import { describe, expect, it } from 'vitest';
import { RateTable, validateUpdate, type Publication } from '../../../src/domain/ecb';

/** A day quoting the first `count` of a fixed list of codes. */
function day(date: string, count = 6): Publication {
  const codes = ['USD', 'JPY', 'GBP', 'CHF', 'SEK', 'NOK'].slice(0, count);
  return { date, rates: Object.fromEntries(codes.map((code) => [code, '1.5'])) };
}

const STORED = RateTable.from([day('2026-04-09'), day('2026-04-10')]);

describe('validateUpdate', () => {
  it('finds nothing wrong with the next daily file', () => {
    expect(validateUpdate(STORED, [day('2026-04-13')], { daily: true })).toEqual([]);
  });

  it('finds nothing wrong with the same daily file fetched again', () => {
    expect(validateUpdate(STORED, [day('2026-04-10')], { daily: true })).toEqual([]);
  });

  it('refuses a file without publications', () => {
    expect(validateUpdate(STORED, [], { daily: false })).toEqual(['the file holds no publications']);
  });

  it('refuses a day with fewer than half as many currencies as the latest stored one', () => {
    expect(validateUpdate(STORED, [day('2026-04-13', 2)], { daily: true })).toEqual([
      '2026-04-13 quotes 2 currencies, fewer than half the 6 of the latest stored day (2026-04-10)',
    ]);
    expect(validateUpdate(STORED, [day('2026-04-13', 3)], { daily: true })).toEqual([]);
  });

  it('lists at most five thin days and counts the rest', () => {
    const thin = Array.from({ length: 8 }, (_, i) => day(`2026-05-0${i + 1}`, 1));
    const problems = validateUpdate(STORED, thin, { daily: false });
    expect(problems).toHaveLength(6);
    expect(problems.at(-1)).toBe('… and 3 more days with too few currencies');
  });

  it('refuses a daily file older than the stored data', () => {
    expect(validateUpdate(STORED, [day('2026-04-09')], { daily: true })).toEqual([
      'the newest incoming day 2026-04-09 is older than the newest stored day 2026-04-10',
    ]);
  });

  it('accepts older days from a history file', () => {
    expect(validateUpdate(STORED, [day('1999-01-04'), day('1999-01-05')], { daily: false })).toEqual([]);
  });

  it('refuses repeated dates', () => {
    expect(validateUpdate(STORED, [day('2026-04-13'), day('2026-04-13')], { daily: true })).toEqual(['duplicate dates: 2026-04-13']);
  });

  it('checks only the incoming file itself when nothing is stored yet', () => {
    const empty = RateTable.from([]);
    expect(validateUpdate(empty, [day('2026-04-13', 1)], { daily: true })).toEqual([]);
    expect(validateUpdate(empty, [], { daily: true })).toEqual(['the file holds no publications']);
  });
});
