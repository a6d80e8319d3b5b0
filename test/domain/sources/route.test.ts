import { describe, expect, it } from 'vitest';
import { formatDecimal } from '../../../src/domain/decimal';
import { SourceHistory } from '../../../src/domain/sources/history';
import { joinRoutes, routeRate } from '../../../src/domain/sources/answer';
import { chooseRoute, sourcesQuoting, type PairLookup } from '../../../src/domain/sources/route';
import type { SourceFigure, SourceId, SourcePublication } from '../../../src/domain/sources/types';

// Made-up publications: the figures are invented, only their shapes are the publishers'.
const per = (value: string, units = '1'): SourceFigure => ({ value, units, direction: 'base-per-units' });
const day = '2026-03-04';
const pub = (source: SourceId, base: string, figures: Record<string, SourceFigure>, table = ''): SourcePublication => ({
  source,
  table,
  date: day,
  base,
  figures,
});

const history = SourceHistory.from([
  pub('boc', 'CAD', { USD: per('1.25'), JPY: per('0.0125') }),
  pub('nbp', 'PLN', { USD: per('4'), EUR: per('4.4') }, 'A'),
  pub('nbp', 'PLN', { KES: per('0.032') }, 'B'),
  pub('nbu', 'UAH', { USD: per('40'), MDL: per('2.5') }),
  pub('cnb', 'CZK', { JPY: per('16', '100') }),
]);
const pair: PairLookup = (source, from, to) => history.pair(source, from, to, day);
const order: SourceId[] = ['boc', 'nb', 'cnb', 'nbp', 'boi', 'nbu', 'cbr', 'imf'];

describe('choosing the figures of a conversion', () => {
  it.each([
    // from, to, sources of the legs, via, the exact rate
    ['USD', 'JPY', ['boc'], undefined, '100'],
    ['JPY', 'CZK', ['cnb'], undefined, '0.16'],
    ['KES', 'USD', ['nbp'], undefined, '0.008'],
    ['KES', 'MDL', ['nbp', 'nbu'], 'USD', '0.128'],
    ['MDL', 'JPY', ['nbu', 'boc'], 'USD', '6.25'],
  ] as const)('%s to %s through %o', (from, to, sources, via, rate) => {
    const route = chooseRoute(pair, order, from, to);
    expect(route?.legs.map((leg) => leg.source)).toEqual(sources);
    expect(route?.via).toBe(via);
    expect(formatDecimal(route!.rate)).toBe(rate);
  });

  it('takes the first source of the order that quotes both', () => {
    expect(chooseRoute(pair, ['nbp', 'boc'], 'USD', 'CAD')?.legs[0].source).toBe('boc');
    expect(chooseRoute(pair, ['nbu', 'nbp'], 'USD', 'PLN')?.legs[0].source).toBe('nbp');
    expect(chooseRoute(pair, ['nbu', 'boc', 'nbp'], 'USD', 'UAH')?.legs[0].source).toBe('nbu');
  });

  it('has no route when no source, nor two joined, quote the pair', () => {
    expect(chooseRoute(pair, order, 'KES', 'ZZZ')).toBeUndefined();
    expect(chooseRoute(pair, ['nbp'], 'KES', 'MDL')).toBeUndefined();
  });

  it('names every source that quotes a pair', () => {
    expect(sourcesQuoting(pair, order, 'USD', 'EUR')).toEqual(['nbp']);
    expect(sourcesQuoting(pair, order, 'USD', 'JPY')).toEqual(['boc']);
  });
});

describe('the attribution of several routes priced on one day', () => {
  const route = (from: string, to: string) => chooseRoute(pair, order, from, to)!;

  it.each([
    // the routes (from, to), sources, the steps, the figures' currencies
    [[['KES', 'USD']], 'nbp', undefined, ['KES', 'USD']],
    [[['KES', 'MDL']], 'nbp; nbu', ['nbp KES USD', 'nbu USD MDL'], ['KES', 'USD', 'USD', 'MDL']],
    [
      [
        ['KES', 'USD'],
        ['KES', 'MDL'],
      ],
      'nbp; nbu',
      ['nbp KES USD', 'nbu USD MDL'],
      ['KES', 'USD', 'USD', 'MDL'],
    ],
    [
      [
        ['USD', 'JPY'],
        ['USD', 'KES'],
      ],
      'boc; nbp',
      ['boc USD JPY', 'nbp USD KES'],
      ['USD', 'JPY', 'USD', 'KES'],
    ],
    // A lone currency priced against itself names the first source quoting it, and shows no figure of a base.
    [[['CAD', 'CAD']], 'boc', undefined, []],
  ] as const)('%j: %s', (pairs, sources, steps, currencies) => {
    const joined = joinRoutes(
      pairs.map(([from, to]) => route(from, to)),
      day,
    );
    expect(joined.source).toBe(sources);
    expect(joined.legs?.map((leg) => `${leg.source} ${leg.from} ${leg.to}`)).toEqual(steps);
    expect(joined.figures.map((f) => f.currency)).toEqual(currencies);
    expect(joined.date).toBe(day);
    expect(joined.resolved).toMatchObject({ requested: day, carriedForward: false });
  });

  it('is the one route’s own attribution for one route', () => {
    const { value, ...attribution } = routeRate(route('KES', 'MDL'), day);
    expect(value).toBe('0.128');
    expect(joinRoutes([route('KES', 'MDL')], day)).toEqual(attribution);
  });
});
