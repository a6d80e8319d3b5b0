import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExactSum } from '../../../src/domain/currency/mean';
import { addYears, isoWeek, periodOf } from '../../../src/domain/currency/periods';
import { seriesCodes, seriesEntries } from '../../../src/domain/currency/series';
import { seriesChange } from '../../../src/domain/currency/series-change';
import { formatDecimal } from '../../../src/domain/decimal';
import type { Publication } from '../../../src/domain/ecb';
import { Rational } from '../../../src/domain/rational';

// Made-up publications in the ECB's form (not real ECB data). RUB stops after 2022-03-01; XAA is
// quoted only on 2022-03-03; 2022-02-28 is a Monday.
const PUBS: Publication[] = [
  { date: '2022-02-24', rates: { USD: '1.1', RUB: '90', JPY: '130' } },
  { date: '2022-02-25', rates: { USD: '1.2', RUB: '95', JPY: '131' } },
  { date: '2022-02-28', rates: { USD: '1.3', RUB: '100', JPY: '132' } },
  { date: '2022-03-01', rates: { USD: '1.4', RUB: '110', JPY: '133' } },
  { date: '2022-03-02', rates: { USD: '1.5', JPY: '134' } },
  { date: '2022-03-03', rates: { USD: '1.6', JPY: '135', XAA: '3' } },
];

describe('the change between the two ends of a series', () => {
  it('runs per currency from its first figure to its last, on the days that quote it', () => {
    expect(seriesChange(PUBS, { base: 'EUR', codes: ['USD', 'RUB', 'XAB'], group: 'day' })).toEqual({
      USD: {
        start: '2022-02-24',
        startRate: '1.1',
        end: '2022-03-03',
        endRate: '1.6',
        change: '0.5',
        changePercent: '45.45454545454545454545454545454545454545',
      },
      RUB: {
        start: '2022-02-24',
        startRate: '90',
        end: '2022-03-01',
        endRate: '110',
        change: '20',
        changePercent: '22.22222222222222222222222222222222222222',
      },
    });
  });

  it('against another base uses the publications that quote the base too, rounded once to decimals', () => {
    const change = seriesChange(PUBS, { base: 'RUB', codes: ['USD'], group: 'month', decimals: 4 });
    // 1.1/90 = 0.01222…, 1.4/110 = 0.012727…
    expect(change).toEqual({
      USD: { start: '2022-02-24', startRate: '0.0122', end: '2022-03-01', endRate: '0.0127', change: '0.0005', changePercent: '4.1322' },
    });
  });
});

describe('periods', () => {
  it.each([
    ['2024-03-28', '2024-W13', '2024-03-25', '2024-03-31'],
    ['2021-01-03', '2020-W53', '2020-12-28', '2021-01-03'],
    ['2024-12-30', '2025-W01', '2024-12-30', '2025-01-05'],
    ['2026-01-01', '2026-W01', '2025-12-29', '2026-01-04'],
    ['2020-12-31', '2020-W53', '2020-12-28', '2021-01-03'],
    ['1999-01-04', '1999-W01', '1999-01-04', '1999-01-10'],
  ])('%s is in ISO week %s (%s … %s)', (date, key, start, end) => {
    expect(isoWeek(date)).toEqual({ key, start, end });
  });

  it.each([
    ['2024-02-10', 'month', '2024-02', '2024-02-01', '2024-02-29'],
    ['2023-02-10', 'month', '2023-02', '2023-02-01', '2023-02-28'],
    ['2023-12-31', 'month', '2023-12', '2023-12-01', '2023-12-31'],
    ['2023-07-14', 'year', '2023', '2023-01-01', '2023-12-31'],
    ['2023-07-14', 'day', '2023-07-14', '2023-07-14', '2023-07-14'],
  ] as const)('%s by %s is %s (%s … %s)', (date, group, key, start, end) => {
    expect(periodOf(date, group)).toEqual({ key, start, end });
  });

  it.each([
    ['2016-02-29', 10, '2026-02-28'],
    ['2014-03-31', 10, '2024-03-31'],
    ['2020-02-29', 4, '2024-02-29'],
  ])('%s plus %i years is %s', (date, years, expected) => {
    expect(addYears(date, years)).toBe(expected);
  });
});

describe('an exact sum, and its mean rounded once', () => {
  const fraction = fc.tuple(fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.bigInt({ min: 1n, max: 10n ** 9n }));

  it('equals the reduced rational mean (property)', () => {
    fc.assert(
      fc.property(fc.array(fraction, { minLength: 1, maxLength: 30 }), (terms) => {
        const sum = new ExactSum();
        let oracle = Rational.ZERO;
        for (const [n, d] of terms) {
          sum.add(n, d);
          oracle = oracle.add(Rational.of(n, d));
        }
        const [num, den] = sum.meanFraction();
        expect(Rational.of(num, den).equals(oracle.div(Rational.of(BigInt(terms.length))))).toBe(true);
        expect(sum.formatMean()).toBe(formatDecimal(oracle.div(Rational.of(BigInt(terms.length)))));
      }),
    );
  });

  it('lies between the smallest and the largest term (property)', () => {
    fc.assert(
      fc.property(fc.array(fraction, { minLength: 1, maxLength: 30 }), (terms) => {
        const sum = new ExactSum();
        for (const [n, d] of terms) sum.add(n, d);
        const values = terms.map(([n, d]) => Rational.of(n, d));
        const [num, den] = sum.meanFraction();
        const mean = Rational.of(num, den);
        expect(values.some((v) => v.compare(mean) <= 0) && values.some((v) => v.compare(mean) >= 0)).toBe(true);
      }),
    );
  });

  it('refuses the mean of nothing', () => {
    expect(() => new ExactSum().meanFraction()).toThrow(RangeError);
  });
});

describe('series entries', () => {
  const codes = ['USD', 'RUB', 'JPY'];

  it('per publication: the ECB strings for base EUR, and a symbol a day lacks is absent that day', () => {
    const entries = [...seriesEntries(PUBS.slice(3, 5), { base: 'EUR', codes, group: 'day' })];
    expect(entries).toEqual([
      { period: '2022-03-01', start: '2022-03-01', end: '2022-03-01', publications: 1, rates: { USD: '1.4', RUB: '110', JPY: '133' } },
      { period: '2022-03-02', start: '2022-03-02', end: '2022-03-02', publications: 1, rates: { USD: '1.5', JPY: '134' } },
    ]);
  });

  it('per publication against another base: exact quotients; a day without the base is skipped', () => {
    const entries = [...seriesEntries(PUBS, { base: 'RUB', codes: ['USD', 'EUR'], group: 'day' })];
    expect(entries.map((e) => e.period)).toEqual(['2022-02-24', '2022-02-25', '2022-02-28', '2022-03-01']);
    expect(entries[2]!.rates).toEqual({ USD: '0.013', EUR: '0.01' });
  });

  it('by ISO week: exact means with the first and last publication and their number', () => {
    const entries = [...seriesEntries(PUBS, { base: 'EUR', codes, group: 'week' })];
    expect(entries.map(({ figures: _figures, ...entry }) => entry)).toEqual([
      { period: '2022-W08', start: '2022-02-24', end: '2022-02-25', publications: 2, rates: { USD: '1.15', RUB: '92.5', JPY: '130.5' } },
      {
        period: '2022-W09',
        start: '2022-02-28',
        end: '2022-03-03',
        publications: 4,
        rates: { USD: '1.45', RUB: '105', JPY: '133.5' },
        partial: { RUB: 2 },
      },
    ]);
  });

  it("grouped: each currency's first, last, lowest and highest figure as published, and its change", () => {
    const [, w09] = [...seriesEntries(PUBS, { base: 'EUR', codes, group: 'week' })];
    expect(w09!.figures).toEqual({
      USD: { first: '1.3', last: '1.6', min: '1.3', max: '1.6', change: '0.3', changePercent: '23.07692307692307692307692307692307692308' },
      // RUB: only the two days that quote it.
      RUB: { first: '100', last: '110', min: '100', max: '110', change: '10', changePercent: '10' },
      JPY: { first: '132', last: '135', min: '132', max: '135', change: '3', changePercent: '2.272727272727272727272727272727272727273' },
    });
  });

  it('grouped against another base, rounded: figures of the daily quotients, each rounded once', () => {
    const [year] = [...seriesEntries(PUBS.slice(0, 2), { base: 'USD', codes: ['JPY'], group: 'year', decimals: 2 })];
    // 130/1.1 = 118.1818…, 131/1.2 = 109.1666…; change -9.0151… = -7.628… %
    expect(year!.figures).toEqual({
      JPY: { first: '118.18', last: '109.17', min: '109.17', max: '118.18', change: '-9.02', changePercent: '-7.63' },
    });
  });

  it('per publication: no figures (a day is its own first, last, lowest and highest)', () => {
    const [day] = [...seriesEntries(PUBS, { base: 'EUR', codes, group: 'day' })];
    expect(day!.figures).toBeUndefined();
  });

  it('by month: a symbol quoted on some publications is averaged over those, with its own count', () => {
    const [feb, mar] = [...seriesEntries(PUBS, { base: 'EUR', codes: [...codes, 'XAA'], group: 'month' })];
    expect(feb).toMatchObject({ period: '2022-02', publications: 3, rates: { USD: '1.2', RUB: '95', JPY: '131' } });
    expect(feb!.partial).toBeUndefined();
    expect(mar).toMatchObject({
      period: '2022-03',
      start: '2022-03-01',
      end: '2022-03-03',
      publications: 3,
      rates: { USD: '1.5', RUB: '110', XAA: '3' },
    });
    expect(mar!.partial).toEqual({ RUB: 1, XAA: 1 });
  });

  it('by year against another base: the mean of the daily quotients, not the quotient of the means', () => {
    const [year] = [...seriesEntries(PUBS.slice(0, 2), { base: 'USD', codes: ['JPY'], group: 'year' })];
    // (130/1.1 + 131/1.2) / 2 = 113.6742…; the quotient of the means would be 130.5/1.15 = 113.478…
    const exact = Rational.parse('130')
      .div(Rational.parse('1.1'))
      .add(Rational.parse('131').div(Rational.parse('1.2')))
      .div(Rational.of(2n));
    expect(year!.rates.JPY).toBe(formatDecimal(exact));
    expect(year!.rates.JPY).toBe('113.6742424242424242424242424242424242424');
  });

  it('by default lists every code quoted in the range, EUR first, never the base', () => {
    expect(seriesCodes(PUBS, 'EUR')).toEqual(['USD', 'RUB', 'JPY', 'XAA']);
    expect(seriesCodes(PUBS, 'USD')).toEqual(['EUR', 'RUB', 'JPY', 'XAA']);
  });
});
