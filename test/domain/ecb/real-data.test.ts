import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseEcbFile, parseEcbXml, RateTable, samePublication, validateUpdate, type Publication } from '../../../src/domain/ecb';
import { renderXml } from './helpers';
import { sharedDataPresent } from '../../helpers/shared-data';

// The real ECB files live outside the project (see ../shared/ecb/README.md); they are never copied in.
const DIR = resolve(process.cwd(), '../shared/ecb');
const PRESENT = sharedDataPresent(DIR);
if (!PRESENT) console.warn(`real ECB data tests skipped: ${DIR} not found`);

const load = (file: string): Publication[] => parseEcbFile(readFileSync(join(DIR, file)), file);
const codes = (pub: Publication | undefined): string[] => Object.keys(pub?.rates ?? {}).sort();

describe.skipIf(!PRESENT)(`the real ECB files in ${DIR}`, () => {
  let history: Publication[];
  let table: RateTable;
  const lastDateWith = (code: string): string | undefined => history.filter((pub) => code in pub.rates).at(-1)?.date;

  beforeAll(() => {
    const started = performance.now();
    history = load('eurofxref-hist.zip');
    const ms = performance.now() - started;
    table = RateTable.from(history);
    console.info(
      `parsed eurofxref-hist.zip (6983 days) in ${ms.toFixed(0)} ms, table built in ${(performance.now() - started - ms).toFixed(0)} ms`,
    );
  });

  it('the history zip has 6983 publications from 1999-01-04 to 2026-04-13', () => {
    expect(history).toHaveLength(6983);
    expect(history[0]?.date).toBe('1999-01-04');
    expect(history.at(-1)?.date).toBe('2026-04-13');
    expect(table.size).toBe(6983);
  });

  it('the first day has 27 currencies with the published values', () => {
    const first = table.get('1999-01-04');
    expect(codes(first)).toHaveLength(27);
    expect(first?.rates).toMatchObject({ USD: '1.1789', JPY: '133.73', GBP: '0.7111', CYP: '0.58231', TRL: '372274' });
    expect(table.get('2008-12-31')?.rates).toMatchObject({ USD: '1.3917', JPY: '126.14', GBP: '0.9525' });
  });

  it('has the publication days per year the README lists', () => {
    const perYear: Record<string, number> = {};
    for (const pub of history) perYear[pub.date.slice(0, 4)] = (perYear[pub.date.slice(0, 4)] ?? 0) + 1;
    expect(perYear).toMatchObject({ '1999': 259, '2004': 259, '2008': 256, '2020': 257, '2025': 255, '2026': 70 });
  });

  it('knows the 41 currencies ever quoted, plus EUR', () => {
    expect(table.knownCurrencies().size).toBe(42);
  });

  it('has no ISK from 2008-12-10 to 2018-01-31, and ISK on either side', () => {
    const gap = history.filter((pub) => pub.date >= '2008-12-10' && pub.date <= '2018-01-31');
    expect(gap).toHaveLength(2341);
    expect(gap.every((pub) => !('ISK' in pub.rates))).toBe(true);
    expect(table.get('2008-12-09')?.rates.ISK).toBeDefined();
    expect(table.get('2018-02-01')?.rates.ISK).toBeDefined();
  });

  it.each([
    ['RUB', '2022-03-01'],
    ['HRK', '2022-12-30'],
    ['BGN', '2025-12-31'],
    ['CYP', '2007-12-31'],
    ['TRL', '2004-12-31'],
  ])('last quotes %s on %s', (code, date) => {
    expect(lastDateWith(code)).toBe(date);
  });

  it('has no BGN from 2026-01-01 on', () => {
    expect(history.filter((pub) => pub.date >= '2026-01-01' && 'BGN' in pub.rates)).toEqual([]);
  });

  it('parses the CSV inside the zip and the plain CSV identically', () => {
    expect(load('eurofxref-hist.csv')).toEqual(history);
  });

  it('reads the daily XML of 2026-07-06 with the 29 currencies of the newest history day', () => {
    const [daily, ...rest] = load('eurofxref-daily.xml');
    expect(rest).toEqual([]);
    expect(daily?.date).toBe('2026-07-06');
    expect(codes(daily)).toEqual(codes(table.latest));
  });

  it.each([
    ['eurofxref-hist-90d.xml', 61, '2025-03-21', '2025-06-18', 30],
    ['extra/2026-06-19/eurofxref-hist-90d.xml', 62, '2026-03-23', '2026-06-19', 29],
  ])('reads %s: %i days from %s to %s, equal to the history on shared days', (file, days, first, last, newestCount) => {
    const pubs = load(file);
    expect([pubs.length, pubs[0]?.date, pubs.at(-1)?.date, codes(pubs.at(-1)).length]).toEqual([days, first, last, newestCount]);
    const shared = pubs.filter((pub) => table.get(pub.date));
    expect(shared.length).toBeGreaterThanOrEqual(14);
    for (const pub of shared) expect(samePublication(pub, table.get(pub.date)!), pub.date).toBe(true);
  });

  it.each([
    ['extra/2025-06-18/eurofxref-daily.xml', 'eurofxref-hist-90d.xml'],
    ['extra/2026-06-19/eurofxref-daily.xml', 'extra/2026-06-19/eurofxref-hist-90d.xml'],
  ])('reads %s equal, as decimals, to the last day of %s', (dailyFile, ninetyDayFile) => {
    const [daily] = load(dailyFile);
    const last = load(ninetyDayFile).at(-1);
    expect(daily?.date).toBe(last?.date);
    expect(samePublication(daily!, last!)).toBe(true);
  });

  it('keeps the trailing zeros of the daily XML that the 90-day XML drops', () => {
    // Not in the README: the 90-day feed writes "143.6" where the daily feed of the same day has "143.60".
    const [daily] = load('extra/2025-06-18/eurofxref-daily.xml');
    const last = load('eurofxref-hist-90d.xml').at(-1);
    expect([daily?.rates.ISK, last?.rates.ISK, daily?.rates.GBP, last?.rates.GBP]).toEqual(['143.60', '143.6', '0.85520', '0.8552']);
  });

  it('reads the daily CSV of 2026-04-13 equal to the history as decimals, strings kept as published', () => {
    const [daily] = load('eurofxref.csv');
    expect(daily?.date).toBe('2026-04-13');
    expect(samePublication(daily!, table.get('2026-04-13')!)).toBe(true);
    expect([daily?.rates.ISK, table.get('2026-04-13')?.rates.ISK]).toEqual(['143.20', '143.2']);
  });

  it.each([
    ['2024-03-29', '2024-03-28'], // Good Friday
    ['2024-04-01', '2024-03-28'], // Easter Monday
    ['2023-12-25', '2023-12-22'], // Christmas
    ['2023-12-26', '2023-12-22'],
    ['2026-04-11', '2026-04-10'], // a Saturday
    ['2026-04-14', '2026-04-13'],
    ['1999-01-04', '1999-01-04'],
  ])('resolves %s to the publication of %s', (date, used) => {
    expect(table.resolve(date)?.date).toBe(used);
  });

  it('resolves a day before the first publication to nothing', () => {
    expect(table.resolve('1999-01-01')).toBeUndefined();
  });

  it('accepts the newer daily XML as an update and merges it', () => {
    const daily = load('eurofxref-daily.xml');
    expect(validateUpdate(table, daily, { daily: true })).toEqual([]);
    expect(table.merge(daily).latest?.date).toBe('2026-07-06');
  });

  it('refuses the 2025 daily XML as a stale update, and merging old equal days changes nothing', () => {
    expect(validateUpdate(table, load('extra/2025-06-18/eurofxref-daily.xml'), { daily: true })).toHaveLength(1);
    expect(table.merge(load('eurofxref-hist-90d.xml'))).toBe(table);
  });

  it('parses the whole history written as the ECB full-history XML back to the same publications', () => {
    // eurofxref-hist.xml itself is not available (README); this stands in for it at full size.
    const xml = renderXml(history, { quote: '"', indented: false });
    const started = performance.now();
    const parsed = parseEcbXml(xml);
    console.info(`parsed the history as XML (${(xml.length / 1e6).toFixed(1)} MB) in ${(performance.now() - started).toFixed(0)} ms`);
    expect(parsed).toEqual(history);
  });
});
