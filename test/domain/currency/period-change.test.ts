import { describe, expect, it } from 'vitest';
import { scaledRate } from '../../../src/domain/currency/cross';
import { changeBetween, FigureRange, periodFigures, type FigurePrint, type SeriesPoint } from '../../../src/domain/currency/period-change';
import { Rational } from '../../../src/domain/rational';

const PUBLISHED: FigurePrint = { published: true };
const EXACT: FigurePrint = { published: false };

/** A publisher's figure: its exact value and its text ("1.0820" keeps its zero). */
const published = (date: string, text: string): SeriesPoint => ({ date, value: scaledRate(text), text });
/** A computed figure (a cross rate): an exact fraction, no text. */
const cross = (date: string, num: bigint, den: bigint): SeriesPoint => ({ date, value: Rational.of(num, den) });

// Expected values checked against Python's fractions.Fraction printed through decimal (prec 40, half-even).
describe('the figures of a period', () => {
  it.each<[string, SeriesPoint[], FigurePrint, object]>([
    [
      'are its first, last, lowest and highest figures as published, and the exact change',
      [
        published('2024-03-25', '1.0830'),
        published('2024-03-26', '1.0802'),
        published('2024-03-27', '1.0939'),
        published('2024-03-28', '1.0811'),
      ],
      PUBLISHED,
      {
        first: '1.0830',
        last: '1.0811',
        min: '1.0802',
        max: '1.0939',
        change: '-0.0019',
        changePercent: '-0.1754385964912280701754385964912280701754',
      },
    ],
    [
      'of a one-day period are that figure, with no change',
      [published('2024-03-29', '1.0800')],
      PUBLISHED,
      { first: '1.0800', last: '1.0800', min: '1.0800', max: '1.0800', change: '0', changePercent: '0' },
    ],
    [
      'keep the earliest figure on a tie for the lowest or highest (its text is printed)',
      [
        published('2024-01-02', '143.20'),
        published('2024-01-03', '143.2'),
        published('2024-01-04', '150'),
        published('2024-01-05', '150.00'),
      ],
      PUBLISHED,
      {
        first: '143.20',
        last: '150.00',
        min: '143.20',
        max: '150',
        change: '6.8',
        changePercent: '4.748603351955307262569832402234636871508',
      },
    ],
    [
      'print the exact values by the unrounded rule when not served as published',
      [published('2024-03-25', '1.0830'), published('2024-03-28', '1.0811')],
      EXACT,
      {
        first: '1.083',
        last: '1.0811',
        min: '1.0811',
        max: '1.083',
        change: '-0.0019',
        changePercent: '-0.1754385964912280701754385964912280701754',
      },
    ],
    [
      'round every figure once to decimals, published texts too',
      [published('2024-03-25', '1.0830'), published('2024-03-28', '1.0811')],
      { published: true, decimals: 2, rounding: 'HALF_UP' },
      { first: '1.08', last: '1.08', min: '1.08', max: '1.08', change: '0.00', changePercent: '-0.18' },
    ],
    [
      'of a cross rate (a non-EUR base) are exact quotients, 40 significant digits at most',
      // JPY per USD: 163.70/1.0830 then 163.00/1.0811
      [cross('2024-03-25', 16370n * 10000n, 100n * 10830n), cross('2024-03-28', 16300n * 10000n, 100n * 10811n)],
      EXACT,
      {
        first: '151.154201292705447830101569713758079409',
        last: '150.7723614836740357043751734344648968643',
        min: '150.7723614836740357043751734344648968643',
        max: '151.154201292705447830101569713758079409',
        change: '-0.3818398090314121257263962792931825447441',
        changePercent: '-0.2526160740262793721207618634541946829309',
      },
    ],
    [
      'of an amount times a rate, rounded once with the mode asked',
      [cross('2024-03-25', 108300n, 1000n), cross('2024-03-28', 108115n, 1000n)],
      { published: false, decimals: 1, rounding: 'DOWN' },
      { first: '108.3', last: '108.1', min: '108.1', max: '108.3', change: '-0.1', changePercent: '-0.1' },
    ],
  ])('%s', (_, points, print, expected) => {
    expect(periodFigures(points, print)).toEqual(expected);
  });

  it('are undefined for a currency with no figure in the period (quoted on none of its days)', () => {
    expect(periodFigures([], PUBLISHED)).toBeUndefined();
    expect(new FigureRange().figures(PUBLISHED)).toBeUndefined();
  });

  it('skip the days a currency is not quoted: its points are the days it is', () => {
    const rub = [published('2022-02-24', '90'), published('2022-03-01', '110')];
    expect(periodFigures(rub, PUBLISHED)).toMatchObject({
      first: '90',
      last: '110',
      change: '20',
      changePercent: '22.22222222222222222222222222222222222222',
    });
  });

  it.each<[string, SeriesPoint[]]>([
    ['a zero rate (a rate is positive, so a change in percent always has a divisor)', [cross('2024-01-02', 0n, 1n)]],
    ['a negative rate', [cross('2024-01-02', -1n, 1n)]],
    ['points out of order', [published('2024-01-03', '1'), published('2024-01-02', '1')]],
    ['two points on one day', [published('2024-01-02', '1'), published('2024-01-02', '1.1')]],
  ])('refuse %s', (_, points) => {
    expect(() => periodFigures(points, PUBLISHED)).toThrow(RangeError);
  });
});

describe('the change between two ends', () => {
  it.each<[string, SeriesPoint, SeriesPoint, FigurePrint, object]>([
    [
      'names both days and figures as published, with the exact change (a fluctuation)',
      published('2024-01-02', '1.0956'),
      published('2024-03-28', '1.0811'),
      PUBLISHED,
      {
        start: '2024-01-02',
        startRate: '1.0956',
        end: '2024-03-28',
        endRate: '1.0811',
        change: '-0.0145',
        changePercent: '-1.323475721066082511865644395764877692589',
      },
    ],
    [
      'is zero from a day to itself',
      published('2024-01-02', '1.0956'),
      published('2024-01-02', '1.0956'),
      PUBLISHED,
      { start: '2024-01-02', startRate: '1.0956', end: '2024-01-02', endRate: '1.0956', change: '0', changePercent: '0' },
    ],
    [
      'rounds once to decimals with the mode asked',
      published('2024-01-02', '1.0956'),
      published('2024-03-28', '1.0811'),
      { published: true, decimals: 3, rounding: 'FLOOR' },
      { start: '2024-01-02', startRate: '1.095', end: '2024-03-28', endRate: '1.081', change: '-0.015', changePercent: '-1.324' },
    ],
  ])('%s', (_, first, last, print, expected) => {
    expect(changeBetween(first, last, print)).toEqual(expected);
  });

  it('runs forward in time only', () => {
    expect(() => changeBetween(published('2024-03-28', '1'), published('2024-01-02', '1'), PUBLISHED)).toThrow(RangeError);
  });
});
