/**
 * The loaders on the publishers' real recorded responses (../shared/feeds, read in place, never
 * copied). Each expected figure is found by an independent reading of the same file in this test
 * (JSON.parse with its reviver's source text, a split of the lines, a regular expression), so no
 * rate of any publisher is written into the project.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseFeed } from '../../../src/domain/sources/parsers';
import { IMF_CURRENCY_NAMES } from '../../../src/domain/sources/imf-names';
import type { ParsedFeed, SourceId } from '../../../src/domain/sources/types';

const FEEDS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../shared/feeds');
const bytes = (file: string) => readFileSync(path.join(FEEDS, file));
const text = (file: string) => bytes(file).toString('utf8');
const load = (source: Exclude<SourceId, 'ecb'>, file: string) => parseFeed(source, bytes(file));
const codes = (feed: ParsedFeed) => new Set(feed.publications.flatMap((p) => Object.keys(p.figures)));
const figure = (feed: ParsedFeed, date: string, code: string, table = '') =>
  feed.publications.find((p) => p.date === date && p.table === table)?.figures[code];
/** JSON.parse with every number replaced by its source text (Node 22+). */
const exactJson = (file: string): any =>
  JSON.parse(text(file), (_k, v, context?: { source?: string }) => (typeof v === 'number' ? context!.source : v));
const figureCount = (feed: ParsedFeed) => feed.publications.reduce((n, p) => n + Object.keys(p.figures).length, 0);

describe('the recorded publisher responses', () => {
  it('Bank of Canada: 26 series described, 23 of them quoted on the recorded days, every v as written', () => {
    const file = 'boc/fx-rates-daily-from-2026-03-12.json';
    const raw = JSON.parse(text(file));
    const feed = load('boc', file);
    expect(Object.keys(raw.seriesDetail)).toHaveLength(26);
    expect(codes(feed).size).toBe(23);
    expect(feed.skipped).toEqual([]);
    for (const obs of raw.observations) {
      for (const [series, entry] of Object.entries<{ v: string }>(obs).filter(([k]) => k !== 'd')) {
        expect(figure(feed, obs.d, series.slice(2, 5))).toEqual({ value: entry.v, units: '1', direction: 'base-per-units' });
      }
    }
  });

  it('Norges Bank: 38 series, 36 currencies (TWI and I44 are indices, skipped), UNIT_MULT as units', () => {
    const file = 'nb/exr-b-nok-sp-2026-03-16-to-2026-03-24.csv';
    const [header, ...rows] = text(file)
      .trim()
      .split('\n')
      .map((line) => line.split(','));
    const col = (name: string) => header!.indexOf(name);
    const feed = load('nb', file);
    expect(new Set(rows.map((r) => r[col('BASE_CUR')])).size).toBe(38);
    expect(codes(feed).size).toBe(36);
    expect(feed.skipped).toHaveLength(rows.filter((r) => ['TWI', 'I44'].includes(r[col('BASE_CUR')]!)).length);
    for (const r of rows.filter((row) => !['TWI', 'I44'].includes(row[col('BASE_CUR')]!) && row[col('OBS_VALUE')] !== '')) {
      expect(figure(feed, r[col('TIME_PERIOD')]!, r[col('BASE_CUR')]!)).toEqual({
        value: r[col('OBS_VALUE')],
        units: 10 ** Number(r[col('UNIT_MULT')]) + '',
        direction: 'base-per-units',
      });
    }
    expect(figure(feed, '2026-03-16', 'JPY')!.units).toBe('100');
  });

  it('Bank of Israel: 14 currencies, UNIT_MULT as units, every figure as written', () => {
    const file = 'boi/exr-of00-2026-03-01-to-2026-03-20.csv';
    const [header, ...rows] = text(file)
      .trim()
      .split('\n')
      .map((line) => line.split(','));
    const col = (name: string) => header!.indexOf(name);
    const feed = load('boi', file);
    expect(codes(feed).size).toBe(14);
    expect(feed.skipped).toEqual([]);
    expect(figureCount(feed)).toBe(rows.length);
    for (const r of rows) {
      expect(figure(feed, r[col('TIME_PERIOD')]!, r[col('BASE_CURRENCY')]!)).toEqual({
        value: r[col('OBS_VALUE')],
        units: 10 ** Number(r[col('UNIT_MULT')]) + '',
        direction: 'base-per-units',
      });
    }
  });

  it('CNB: 30 currencies over 65 days, each rate the JSON text, a 100-unit currency among them', () => {
    const file = 'cnb/daily-year-2026-to-2026-04-02.json';
    const feed = load('cnb', file);
    expect(codes(feed).size).toBe(30);
    expect(feed.publications).toHaveLength(65);
    expect(feed.skipped).toEqual([]);
    for (const r of exactJson(file).rates) {
      expect(figure(feed, r.validFor, r.currencyCode)).toEqual({ value: r.rate, units: r.amount, direction: 'base-per-units' });
    }
    const jpy = /"currencyCode":"JPY","amount":100,"validFor":"([\d-]+)","rate":([\d.]+)/.exec(text(file))!;
    expect(figure(feed, jpy[1]!, 'JPY')).toEqual({ value: jpy[2], units: '100', direction: 'base-per-units' });
  });

  it('NBP: table A 32 currencies on 4 days, table B 116 on its one effectiveDate', () => {
    for (const [file, table, count, days] of [
      ['nbp/table-a-2026-03-01-to-2026-03-05.json', 'A', 32, 4],
      ['nbp/table-b-2026-03-01-to-2026-03-05.json', 'B', 116, 1],
    ] as const) {
      const feed = load('nbp', file);
      expect([codes(feed).size, feed.publications.length, feed.skipped.length]).toEqual([count, days, 0]);
      for (const t of exactJson(file)) {
        for (const r of t.rates)
          expect(figure(feed, t.effectiveDate, r.code, table)).toEqual({ value: r.mid, units: '1', direction: 'base-per-units' });
      }
    }
    const afn = /"effectiveDate":"([\d-]+)".*?"code":"AFN","mid":([\d.]+)/.exec(text('nbp/table-b-2026-03-01-to-2026-03-05.json'))!;
    expect(figure(load('nbp', 'nbp/table-b-2026-03-01-to-2026-03-05.json'), afn[1]!, 'AFN', 'B')!.value).toBe(afn[2]);
  });

  it('Bank of Russia XML_daily: 54 currencies, a decimal comma and Nominal 10 read as published', () => {
    const file = 'cbr/xml-daily-2026-04-25.xml';
    const decoded = new TextDecoder('windows-1251').decode(bytes(file));
    const feed = load('cbr', file);
    expect(codes(feed).size).toBe(54);
    expect(feed.skipped).toEqual([]);
    const all = [
      ...decoded.matchAll(/<CharCode>([A-Z]{3})<\/CharCode><Nominal>(\d+)<\/Nominal><Name>[^<]*<\/Name><Value>([\d,]+)<\/Value>/g),
    ];
    expect(all).toHaveLength(54);
    for (const [, code, nominal, value] of all) {
      expect(figure(feed, '2026-04-25', code!)).toEqual({ value: value!.replace(',', '.'), units: nominal, direction: 'base-per-units' });
    }
    const ten = all.find(([, , nominal, value]) => nominal === '10' && value!.includes(','))!;
    expect(figure(feed, '2026-04-25', ten[1]!)!.units).toBe('10');
  });

  it("Bank of Russia XML_dynamic: the bank's id R01010 is AUD (as XML_daily pairs them), one figure per Record", () => {
    const daily = new TextDecoder('windows-1251').decode(bytes('cbr/xml-daily-2026-04-25.xml'));
    const code = /<Valute ID="R01010"><NumCode>\d+<\/NumCode><CharCode>([A-Z]{3})/.exec(daily)![1]!;
    const file = 'cbr/xml-dynamic-R01010-2026-03-01-to-2026-03-05.xml';
    const feed = load('cbr', file);
    const records = [
      ...text(file).matchAll(/<Record Date="(\d\d)\.(\d\d)\.(\d{4})" Id="R01010"><Nominal>(\d+)<\/Nominal><Value>([\d,]+)</g),
    ];
    expect(records.length).toBeGreaterThan(0);
    expect(feed.publications).toHaveLength(records.length);
    for (const [, d, m, y, nominal, value] of records) {
      expect(figure(feed, `${y}-${m}-${d}`, code)).toEqual({
        value: value!.replace(',', '.'),
        units: nominal,
        direction: 'base-per-units',
      });
    }
  });

  it('NBU: 45 codes over 16 days, units and rate as the JSON text', () => {
    const file = 'nbu/exchange-site-2026-03-01-to-2026-03-16.json';
    const feed = load('nbu', file);
    expect([codes(feed).size, feed.publications.length, feed.skipped.length]).toEqual([45, 16, 0]);
    for (const r of exactJson(file)) {
      const [d, m, y] = r.exchangedate.split('.');
      expect(figure(feed, `${y}-${m}-${d}`, r.cc)).toEqual({ value: r.rate, units: r.units, direction: 'base-per-units' });
    }
  });

  describe('IMF', () => {
    /** The data rows of a report, read by splitting on tabs, with the days of the header above each. */
    function cells(file: string): { name: string; day: string; cell: string }[] {
      const out: { name: string; day: string; cell: string }[] = [];
      let days: string[] = [];
      for (const line of text(file).split('\r\n')) {
        if (line === 'Notes:') break;
        const parts = line.split('\t');
        if (parts[0] === 'Currency') days = parts.slice(1).map((d) => new Date(`${d} UTC`).toISOString().slice(0, 10));
        else if (parts.length > 1) parts.slice(1).forEach((cell, i) => out.push({ name: parts[0]!, day: days[i]!, cell }));
      }
      return out;
    }

    it.each([
      ['imf/rms-mth-rep-2026-03.tsv', 'representative', 36, 35],
      ['imf/rms-mth-sdrcv-2026-03.tsv', 'sdr', 36, 36],
    ] as const)('%s: every name mapped, nothing skipped, every cell but NA a figure as written', (file, table, names, quoted) => {
      const feed = load('imf', file);
      const all = cells(file);
      const printed = new Set(all.map((c) => c.name));
      expect(printed.size).toBe(names);
      for (const name of printed) expect(IMF_CURRENCY_NAMES[name.replace(/\(1\)$/, '')], name).toBeDefined();
      expect(feed.skipped).toEqual([]);
      expect(codes(feed).size).toBe(quoted);
      expect(new Set(feed.publications.map((p) => p.table))).toEqual(new Set([table]));
      const figures = all.filter((c) => c.cell !== 'NA' && !(table === 'representative' && c.name === 'U.S. dollar'));
      expect(figureCount(feed)).toBe(figures.length);
      for (const c of figures) {
        const code = IMF_CURRENCY_NAMES[c.name.replace(/\(1\)$/, '')]!;
        const direction = table === 'sdr' || c.name.endsWith('(1)') ? 'base-per-units' : 'units-per-base';
        expect(figure(feed, c.day, code, table)).toEqual({ value: c.cell.replaceAll(',', ''), units: '1', direction });
      }
    });

    it('reads a row marked (1) as US dollars per unit', () => {
      const row = cells('imf/rms-mth-rep-2026-03.tsv').find((c) => c.name.endsWith('(1)') && c.cell !== 'NA')!;
      const code = IMF_CURRENCY_NAMES[row.name.slice(0, -3)]!;
      expect(figure(load('imf', 'imf/rms-mth-rep-2026-03.tsv'), row.day, code, 'representative')).toEqual({
        value: row.cell,
        units: '1',
        direction: 'base-per-units',
      });
    });
  });
});
