import { describe, expect, it } from 'vitest';
import { routeRate } from '../../../src/domain/sources/answer';
import { SourceHistory } from '../../../src/domain/sources/history';
import { chooseRoute, type PairLookup } from '../../../src/domain/sources/route';
import type { SourceFigure, SourceId, SourcePublication } from '../../../src/domain/sources/types';

// Made-up publications: the figures and the gaps are invented, only their shapes are the publishers'.
// Days of 2026: 03-04 and 03-18 are Wednesdays, 04-03 is Good Friday, 04-06 Easter Monday, 05-01 a Friday.
const per = (value: string): SourceFigure => ({ value, units: '1', direction: 'base-per-units' });
const perBase = (value: string): SourceFigure => ({ value, units: '1', direction: 'units-per-base' });
const pub = (source: SourceId, table: string, date: string, base: string, figures: Record<string, SourceFigure>): SourcePublication => ({
  source,
  table,
  date,
  base,
  figures,
});

const history = SourceHistory.from([
  // A daily source without a publication on Good Friday.
  ...['2026-04-01', '2026-04-02', '2026-04-06'].map((date) => pub('boc', '', date, 'CAD', { USD: per('1.4000') })),
  // NBP's daily table A, closed on Easter Monday; its weekly table B, with no table in the week of 03-11.
  ...['2026-03-06', '2026-03-09', '2026-04-02', '2026-04-03', '2026-04-07'].map((date) =>
    pub('nbp', 'A', date, 'PLN', { USD: per('4.0000') }),
  ),
  ...['2026-03-04', '2026-03-18'].map((date) => pub('nbp', 'B', date, 'PLN', { KES: per('0.0300') })),
  // The IMF's representative rates, with no column for Monday 03-09.
  ...['2026-03-05', '2026-03-06', '2026-03-10'].map((date) => pub('imf', 'representative', date, 'USD', { JPY: perBase('150.00') })),
  // The Bank of Russia, closed on the first days of May.
  ...['2026-04-30', '2026-05-05'].map((date) => pub('cbr', '', date, 'RUB', { USD: per('80.00') })),
]);

const on =
  (date: string): PairLookup =>
  (source, from, to) =>
    history.pair(source, from, to, date);

/** The answer's rate for `from` → `to` on `requested` through `sources` only, or undefined when none quotes it then. */
const rateOn = (sources: SourceId[], from: string, to: string, requested: string) => {
  const route = chooseRoute(on(requested), sources, from, to);
  return route && routeRate(route, requested);
};

describe('a day a source did not publish resolves to its last publication, and the answer says why', () => {
  it.each([
    // source, from, to, day asked, publication used, reason (absent: the day's own publication)
    ['boc', 'USD', 'CAD', '2026-04-02', '2026-04-02', undefined],
    ['boc', 'USD', 'CAD', '2026-04-03', '2026-04-02', 'no-publication'], // a publisher's holiday
    ['boc', 'USD', 'CAD', '2026-04-04', '2026-04-02', 'weekend'],
    ['boc', 'USD', 'CAD', '2026-04-05', '2026-04-02', 'weekend'],
    ['boc', 'USD', 'CAD', '2026-04-06', '2026-04-06', undefined],
    ['nbp', 'USD', 'PLN', '2026-04-06', '2026-04-03', 'no-publication'],
    ['nbp', 'USD', 'PLN', '2026-04-14', '2026-04-07', 'no-publication'],
    ['nbp', 'KES', 'PLN', '2026-03-04', '2026-03-04', undefined], // a weekly table on its own day
    ['nbp', 'KES', 'PLN', '2026-03-06', '2026-03-04', 'weekly-table'],
    ['nbp', 'KES', 'PLN', '2026-03-07', '2026-03-04', 'weekly-table'],
    ['nbp', 'KES', 'PLN', '2026-03-11', '2026-03-04', 'weekly-table'], // a week without its table
    ['nbp', 'KES', 'PLN', '2026-03-18', '2026-03-18', undefined],
    ['imf', 'JPY', 'USD', '2026-03-06', '2026-03-06', undefined],
    ['imf', 'JPY', 'USD', '2026-03-08', '2026-03-06', 'weekend'],
    ['imf', 'JPY', 'USD', '2026-03-09', '2026-03-06', 'no-publication'], // a day without a column
    ['cbr', 'USD', 'RUB', '2026-05-01', '2026-04-30', 'no-publication'],
    ['cbr', 'USD', 'RUB', '2026-05-04', '2026-04-30', 'no-publication'],
  ] as const)('%s %s→%s asked for %s: the publication of %s (%s)', (source, from, to, requested, publication, reason) => {
    const rate = rateOn([source], from, to, requested)!;
    const resolved =
      reason === undefined ? { requested, publication, carriedForward: false } : { requested, publication, carriedForward: true, reason };
    expect(rate.date).toBe(publication);
    expect(rate.resolved).toEqual(resolved);
    expect(rate.figures.map((figure) => figure.resolved)).toEqual([resolved]);
  });

  it.each([
    ['boc', 'USD', 'CAD', '2026-04-14'], // a daily table carries 7 days
    ['nbp', 'USD', 'PLN', '2026-04-15'],
    ['nbp', 'KES', 'PLN', '2026-04-02'], // a weekly table carries 14
    ['imf', 'JPY', 'USD', '2026-03-18'],
    ['nbp', 'KES', 'PLN', '2026-03-03'], // before its first table
  ] as const)('%s %s→%s asked for %s: past what its last publication carries, no rate', (source, from, to, requested) => {
    expect(rateOn([source], from, to, requested)).toBeUndefined();
  });

  it('a conversion through two sources says how the day resolved for each figure, and carries forward as a whole', () => {
    const rate = rateOn(['nbp', 'imf'], 'KES', 'JPY', '2026-03-09')!;
    expect(rate.source).toBe('nbp; imf');
    expect(rate.figures.map((f) => [f.source, f.table, f.currency, f.resolved])).toEqual([
      ['nbp', 'B', 'KES', { requested: '2026-03-09', publication: '2026-03-04', carriedForward: true, reason: 'weekly-table' }],
      ['nbp', 'A', 'USD', { requested: '2026-03-09', publication: '2026-03-09', carriedForward: false }],
      [
        'imf',
        'representative',
        'JPY',
        { requested: '2026-03-09', publication: '2026-03-06', carriedForward: true, reason: 'no-publication' },
      ],
    ]);
    // The oldest publication used, and the first reason met in the order the figures were used.
    expect(rate.date).toBe('2026-03-04');
    expect(rate.resolved).toEqual({ requested: '2026-03-09', publication: '2026-03-04', carriedForward: true, reason: 'weekly-table' });
  });
});
