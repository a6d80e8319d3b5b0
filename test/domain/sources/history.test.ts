import { describe, expect, it } from 'vitest';
import { SourceHistory, unitsPerBase } from '../../../src/domain/sources/history';
import type { SourceFigure, SourcePublication } from '../../../src/domain/sources/types';

// Made-up publications: the figures are invented, only their shapes are the publishers'.
const per = (value: string, units = '1'): SourceFigure => ({ value, units, direction: 'base-per-units' });
const pub = (source: SourcePublication['source'], table: string, date: string, base: string, figures: Record<string, SourceFigure>) =>
  ({ source, table, date, base, figures }) satisfies SourcePublication;

const history = SourceHistory.from([
  pub('nbp', 'A', '2026-03-02', 'PLN', { USD: per('4.0000'), EUR: per('4.3000') }),
  pub('nbp', 'A', '2026-03-03', 'PLN', { USD: per('4.0100'), EUR: per('4.3100') }),
  pub('nbp', 'B', '2026-03-04', 'PLN', { KES: per('0.0310') }),
  pub('imf', 'representative', '2026-03-03', 'USD', { JPY: { value: '150.00', units: '1', direction: 'units-per-base' } }),
  pub('imf', 'sdr', '2026-03-03', 'XDR', { JPY: per('0.0049'), USD: per('0.73') }),
]);

describe('unitsPerBase reads each figure as its publisher meant it', () => {
  it.each([
    [per('23.456', '100'), '100/23.456'],
    [per('53.8359', '10'), '10/53.8359'],
    [{ value: '150.5', units: '1', direction: 'units-per-base' } as const, '150.5'],
    [{ value: '1.1698', units: '1', direction: 'base-per-units' } as const, '1/1.1698'],
  ])('%o is %s units per base', (figure, expected) => {
    const [num, den = '1'] = expected.split('/');
    expect(unitsPerBase(figure).equals(unitsPerBaseOf(num!, den))).toBe(true);
  });
});

function unitsPerBaseOf(num: string, den: string) {
  return unitsPerBase({ value: den, units: num, direction: 'base-per-units' });
}

describe('a figure on a day is the latest publication on or before it, within its table carry limit', () => {
  it.each([
    ['nbp', 'USD', '2026-03-03', '2026-03-03', '4.0100'],
    ['nbp', 'USD', '2026-03-07', '2026-03-03', '4.0100'],
    ['nbp', 'USD', '2026-03-10', '2026-03-03', '4.0100'],
    ['nbp', 'USD', '2026-03-11', undefined, undefined],
    ['nbp', 'KES', '2026-03-06', '2026-03-04', '0.0310'],
    ['nbp', 'KES', '2026-03-18', '2026-03-04', '0.0310'],
    ['nbp', 'KES', '2026-03-19', undefined, undefined],
    ['nbp', 'KES', '2026-03-03', undefined, undefined],
    ['nbp', 'PLN', '2026-03-02', '2026-03-02', '1'],
    ['boc', 'USD', '2026-03-03', undefined, undefined],
  ] as const)('%s %s on %s: the publication of %s', (source, code, date, day, value) => {
    const [found] = history.figures(source, code, date);
    expect(found?.date).toBe(day);
    expect(found?.figure.value).toBe(value);
  });

  it('without a day, the newest figure its table still carries', () => {
    expect(history.figures('nbp', 'USD')[0]?.date).toBe('2026-03-03');
    expect(history.figures('nbp', 'KES')[0]?.date).toBe('2026-03-04');
  });
});

describe('two figures of one source are paired against one base', () => {
  it('tables that share a base pair (NBP A with B)', () => {
    const pair = history.pair('nbp', 'KES', 'USD', '2026-03-05');
    expect(pair?.map((f) => [f.table, f.date])).toEqual([
      ['B', '2026-03-04'],
      ['A', '2026-03-03'],
    ]);
  });

  it('tables of other bases never mix (the IMF per dollar and per SDR)', () => {
    expect(history.pair('imf', 'JPY', 'USD', '2026-03-03')?.map((f) => f.table)).toEqual(['representative', 'representative']);
    expect(history.pair('imf', 'JPY', 'XDR', '2026-03-03')?.map((f) => f.table)).toEqual(['sdr', 'sdr']);
  });
});

describe('merging', () => {
  it('keeps a day held with the same figures and replaces a corrected one', () => {
    const same = history.merge([pub('nbp', 'B', '2026-03-04', 'PLN', { KES: per('0.0310') })]);
    expect(same).toBe(history);
    const corrected = history.merge([pub('nbp', 'B', '2026-03-04', 'PLN', { KES: per('0.0311') })]);
    expect(corrected.figures('nbp', 'KES', '2026-03-04')[0]?.figure.value).toBe('0.0311');
    expect(corrected.size).toBe(history.size);
  });

  it('refuses a repeated day of one table and a malformed day', () => {
    const day = pub('boc', '', '2026-03-04', 'CAD', {});
    expect(() => SourceHistory.from([day, day])).toThrow(TypeError);
    expect(() => SourceHistory.from([{ ...day, date: '4.3.2026' }])).toThrow(/YYYY-MM-DD/);
  });

  it('lists what each source quoted, from its first to its last day', () => {
    expect(history.quoted('nbp').get('USD')).toEqual({ first: '2026-03-02', last: '2026-03-03' });
    expect(history.quoted('nbp').get('PLN')).toEqual({ first: '2026-03-02', last: '2026-03-04' });
    expect(history.latest('nbp')).toBe('2026-03-04');
    expect(history.latestOfTable('nbp', 'A')).toBe('2026-03-03');
  });
});

describe('a response of one currency adds to the day held', () => {
  it('keeps the day’s other figures', () => {
    const day = history.merge([pub('nbp', 'A', '2026-03-03', 'PLN', { USD: per('4.0200') })]);
    expect(day.figures('nbp', 'USD', '2026-03-03')[0]?.figure.value).toBe('4.0200');
    expect(day.figures('nbp', 'EUR', '2026-03-03')[0]?.figure.value).toBe('4.3100');
  });
});
