import { describe, expect, it } from 'vitest';
import { buildRegistry, currencyEntry, findCurrency, quoteSpans, extendSpans, NO_SPANS } from '../../../src/domain/currency/registry';
import { isoFacts } from '../../../src/domain/currency/iso';
import { SUCCESSIONS, successionOf, fixedRateText } from '../../../src/domain/currency/successions';
import { ECB_CURRENCY_CODES } from '../../../src/domain/currency/codes';
import type { Publication } from '../../../src/domain/ecb';
import { expectApiError } from '../helpers';

// Made-up publications in the ECB's form (not real ECB data): HRK stops, RUB stops, CNY starts late.
const PUBS: Publication[] = [
  { date: '2022-12-29', rates: { USD: '1.0600', HRK: '7.5411', RUB: '77.00' } },
  { date: '2022-12-30', rates: { USD: '1.0650', HRK: '7.5402' } },
  { date: '2023-01-02', rates: { USD: '1.0700', CNY: '7.3000' } },
];

describe('the registry is computed from the publications, never hard-coded', () => {
  const spans = quoteSpans(PUBS);

  it.each([
    ['USD', '2022-12-29', '2023-01-02', 'active'],
    ['HRK', '2022-12-29', '2022-12-30', 'retired'],
    ['RUB', '2022-12-29', '2022-12-29', 'retired'],
    ['CNY', '2023-01-02', '2023-01-02', 'active'],
    ['EUR', '2022-12-29', '2023-01-02', 'active'],
    ['CYP', null, null, 'retired'],
  ])('%s: first %s, last %s, %s', (code, firstDate, lastDate, status) => {
    expect(currencyEntry(code, spans)).toMatchObject({ code, firstDate, lastDate, status });
  });

  it('folds in any order and in slices to the same spans', () => {
    const sliced = extendSpans(extendSpans(NO_SPANS, [PUBS[2], undefined]), [PUBS[1], PUBS[0]]);
    expect(buildRegistry(sliced)).toEqual(buildRegistry(spans));
  });

  it('lists EUR first, then every code ever quoted or replaced by law (the known lists and the data), alphabetically', () => {
    const withNew = quoteSpans([...PUBS, { date: '2023-01-03', rates: { XAU: '1' } }]);
    const codes = buildRegistry(withNew).map((e) => e.code);
    expect(codes[0]).toBe('EUR');
    expect(codes.slice(1)).toEqual([...codes.slice(1)].sort());
    expect(new Set(codes)).toEqual(new Set([...ECB_CURRENCY_CODES, ...SUCCESSIONS.map((s) => s.code), 'XAU']));
  });

  it('gives nothing active while no publication is held', () => {
    expect(buildRegistry(NO_SPANS).every((e) => e.status === 'retired' && e.firstDate === null)).toBe(true);
  });

  it('carries the successor and its legal rate', () => {
    expect(currencyEntry('HRK', spans).successor).toMatchObject({ successor: 'EUR', rate: '7.53450', since: '2023-01-01', kind: 'euro' });
    expect(currencyEntry('USD', spans).successor).toBeNull();
  });
});

describe('the legal table', () => {
  it.each([
    ['EEK', 'EUR', '15.6466', '2011-01-01'],
    ['HRK', 'EUR', '7.53450', '2023-01-01'],
    ['BGN', 'EUR', '1.95583', '2026-01-01'],
    ['CYP', 'EUR', '0.585274', '2008-01-01'],
    ['MTL', 'EUR', '0.429300', '2008-01-01'],
    ['SIT', 'EUR', '239.640', '2007-01-01'],
    ['SKK', 'EUR', '30.1260', '2009-01-01'],
    ['LVL', 'EUR', '0.702804', '2014-01-01'],
    ['LTL', 'EUR', '3.45280', '2015-01-01'],
    ['GRD', 'EUR', '340.750', '2001-01-01'],
    ['ROL', 'RON', '10000', '2005-07-01'],
    ['TRL', 'TRY', '1000000', '2005-01-01'],
  ])('%s → %s at %s from %s', (code, successor, rate, since) => {
    expect(successionOf(code)).toMatchObject({ successor, rate, since });
  });

  it('names a legal source on every row, and writes every euro rate with six significant digits', () => {
    for (const s of SUCCESSIONS) {
      expect(s.source.length).toBeGreaterThan(10);
      if (s.kind === 'euro') expect(s.rate.replace('.', '').replace(/^0+/, '')).toHaveLength(6);
    }
    expect(fixedRateText(successionOf('HRK')!)).toBe('1 EUR = 7.53450 HRK');
  });
});

describe('ISO 4217 facts', () => {
  it.each([
    ['EUR', '978', 2],
    ['JPY', '392', 0],
    ['ISK', '352', 0],
    ['USD', '840', 2],
    ['HRK', '191', 2],
    ['EEK', '233', 2],
    ['TRL', '792', 0],
    ['ROL', '642', 2],
  ])('%s is %s with %i minor units', (code, numericCode, minorUnits) => {
    expect(isoFacts(code)).toMatchObject({ numericCode, minorUnits });
  });

  it('has an English name and ISO data for every currency the ECB has quoted', () => {
    for (const code of ECB_CURRENCY_CODES) {
      const facts = isoFacts(code);
      expect(facts.name, code).not.toBe(code);
      expect(facts.numericCode, code).toMatch(/^\d{3}$/);
      expect(facts.minorUnits, code).not.toBeNull();
    }
  });

  it('names an unknown code by itself, without ISO data', () => {
    expect(isoFacts('XXQ')).toEqual({ name: 'XXQ', numericCode: null, minorUnits: null });
  });
});

describe('one currency by path segment', () => {
  const registry = buildRegistry(quoteSpans(PUBS));

  it('is case-insensitive', () => {
    expect(findCurrency(registry, 'hrk').code).toBe('HRK');
  });

  it.each([['XYZ'], ['US'], ['usdx'], ['U$D']])('answers NOT_FOUND for %j', (code) => {
    expectApiError(() => findCurrency(registry, code), 'NOT_FOUND', 'code');
  });
});
