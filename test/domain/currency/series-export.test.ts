import { describe, expect, it } from 'vitest';
import { csvField, csvLines, exportCost } from '../../../src/domain/currency/series-export';
import type { SeriesEntry } from '../../../src/domain/currency/series';
import { parseCsv } from './csv-reader';

// Made-up entries, not real ECB data.
const DAYS: SeriesEntry[] = [
  { period: '2024-03-27', start: '2024-03-27', end: '2024-03-27', publications: 1, rates: { USD: '1.2340', JPY: '150.10' } },
  { period: '2024-03-28', start: '2024-03-28', end: '2024-03-28', publications: 1, rates: { USD: '1.2350' } },
];
const MONTH: SeriesEntry = {
  period: '2022-03',
  start: '2022-03-01',
  end: '2022-03-31',
  publications: 23,
  rates: { USD: '1.1', RUB: '110' },
  partial: { RUB: 1 },
  figures: {
    USD: { first: '1.0', last: '1.2', min: '0.9', max: '1.3', change: '0.2', changePercent: '20' },
    RUB: { first: '110', last: '110', min: '110', max: '110', change: '0', changePercent: '0' },
  },
};

describe('CSV (RFC 4180), one row per entry, one column per currency', () => {
  it('per publication: date,base,codes…; a missing rate is an empty cell; CRLF line ends', () => {
    const text = [...csvLines(DAYS, { base: 'EUR', group: 'day', symbols: ['USD', 'JPY'] })].join('');
    expect(text).toBe('date,base,USD,JPY\r\n2024-03-27,EUR,1.2340,150.10\r\n2024-03-28,EUR,1.2350,\r\n');
    expect(parseCsv(text)).toEqual([
      ['date', 'base', 'USD', 'JPY'],
      ['2024-03-27', 'EUR', '1.2340', '150.10'],
      ['2024-03-28', 'EUR', '1.2350', ''],
    ]);
  });

  it("grouped: period,start,end,publications,base,codes…,partial, then each code's six figures", () => {
    const lines = [...csvLines([MONTH], { base: 'EUR', group: 'month', symbols: ['USD', 'RUB'] })];
    expect(lines).toEqual([
      'period,start,end,publications,base,USD,RUB,partial,' +
        'USD_first,USD_last,USD_min,USD_max,USD_change,USD_changePercent,' +
        'RUB_first,RUB_last,RUB_min,RUB_max,RUB_change,RUB_changePercent\r\n',
      '2022-03,2022-03-01,2022-03-31,23,EUR,1.1,110,RUB=1,1.0,1.2,0.9,1.3,0.2,20,110,110,110,110,0,0\r\n',
    ]);
  });

  it('grouped: a currency with no figures in a period has empty cells', () => {
    const [, row] = [...csvLines([{ ...MONTH, figures: {} }], { base: 'EUR', group: 'month', symbols: ['USD'] })];
    expect(row).toBe('2022-03,2022-03-01,2022-03-31,23,EUR,1.1,RUB=1,,,,,,\r\n');
  });

  it.each([
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
  ])('quotes %j as %s', (value, expected) => {
    expect(csvField(value)).toBe(expected);
    expect(parseCsv(`${csvField(value)}\r\n`)).toEqual([[value]]);
  });
});

describe('a computed series page costs one request per 10,000 rates or part of them', () => {
  it.each([
    [0, 0, 1],
    [1, 1, 1],
    [22, 1, 1],
    [250, 40, 1],
    [251, 40, 2],
    [2561, 1, 1],
    [2561, 41, 11],
    [2561, 100, 26],
    [6900, 41, 29],
  ])('%i publications × %i currencies: %i', (publications, currencies, cost) => {
    expect(exportCost(publications, currencies)).toBe(cost);
  });
});
