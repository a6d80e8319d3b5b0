import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crossFraction, formatCross, scaledRate } from '../../../src/domain/currency/cross';
import { listCrossRates } from '../../../src/domain/currency/rates-listing';
import { ApiError } from '../../../src/domain/errors';
import type { Publication } from '../../../src/domain/ecb';
import { Rational } from '../../../src/domain/rational';
import { Oracle, oracleFormat, OUTPUT_PATTERN } from '../helpers';

// Made-up rates in the ECB's form (units per euro), not real ECB data.
const DAY: Publication = { date: '2024-03-28', rates: { USD: '1.1200', JPY: '157.30', GBP: '0.86200', ISK: '151.70' } };
const noRate = (code: string, param: string) => new ApiError('RATE_NOT_FOUND', `no ${code}.`, { param });
const list = (request: Parameters<typeof listCrossRates>[1]) => listCrossRates(DAY, request, noRate).rates;

describe('cross rates are rate(code) ÷ rate(base), exactly, printed by the unrounded rule', () => {
  it.each([
    ['JPY', 'USD', '140.4464285714285714285714285714285714286'],
    ['EUR', 'USD', '0.8928571428571428571428571428571428571429'],
    ['USD', 'USD', '1'],
    ['USD', 'EUR', '1.12'],
    ['ISK', 'GBP', '175.9860788863109048723897911832946635731'],
    ['GBP', 'ISK', '0.005682267633487145682267633487145682267633'],
  ])('%s per %s is %s', (code, base, expected) => {
    expect(formatCross(scaledRate(code === 'EUR' ? '1' : DAY.rates[code]!), scaledRate(base === 'EUR' ? '1' : DAY.rates[base]!))).toBe(
      expected,
    );
  });

  it('keeps every digit of a terminating quotient, and drops trailing zeros', () => {
    expect(formatCross(scaledRate('2.50'), scaledRate('1.25'))).toBe('2');
    expect(formatCross(scaledRate('1'), scaledRate('3.2'))).toBe('0.3125');
  });

  const rateText = fc
    .tuple(fc.integer({ min: 0, max: 99999 }), fc.integer({ min: 1, max: 9999 }), fc.integer({ min: 0, max: 4 }))
    .map(([int, frac, places]) => (places === 0 ? String(int + 1) : `${int}.${String(frac).padStart(4, '0').slice(0, places)}`))
    .filter((text) => Rational.parse(text).sign() > 0);

  it('cross × base = rate, exactly (property)', () => {
    fc.assert(
      fc.property(rateText, rateText, (code, base) => {
        const [num, den] = crossFraction(scaledRate(code), scaledRate(base));
        expect(Rational.of(num, den).mul(Rational.parse(base)).equals(Rational.parse(code))).toBe(true);
      }),
    );
  });

  it('prints what decimal.js prints at 200 digits, rounded half-even to 40 significant digits (property)', () => {
    fc.assert(
      fc.property(rateText, rateText, (code, base) => {
        const printed = formatCross(scaledRate(code), scaledRate(base));
        expect(printed).toMatch(OUTPUT_PATTERN);
        expect(printed).toBe(oracleFormat(new Oracle(code).div(new Oracle(base))));
      }),
    );
  });
});

describe('a listing against any base, with an amount', () => {
  it('serves the ECB strings as published for base EUR (trailing zeros kept), EUR first', () => {
    expect(listCrossRates(DAY, { base: 'EUR' }, noRate)).toEqual({
      date: '2024-03-28',
      base: 'EUR',
      source: 'ecb',
      rates: { EUR: '1', USD: '1.1200', JPY: '157.30', GBP: '0.86200', ISK: '151.70' },
    });
  });

  it('lists the base first as "1", then EUR, then the ECB order', () => {
    expect(Object.entries(list({ base: 'GBP' })).slice(0, 3)).toEqual([
      ['GBP', '1'],
      ['EUR', '1.160092807424593967517401392111368909513'],
      ['USD', '1.299303944315545243619489559164733178654'],
    ]);
  });

  it('multiplies every rate by the amount exactly, with decimals and rounding once per entry', () => {
    const amount = Rational.parse('100');
    expect(list({ base: 'EUR', symbols: ['USD', 'GBP', 'EUR'], amount })).toEqual({ USD: '112', GBP: '86.2', EUR: '100' });
    expect(list({ base: 'USD', symbols: ['JPY', 'USD'], amount, decimals: 0 })).toEqual({ JPY: '14045', USD: '100' });
    expect(list({ base: 'USD', symbols: ['JPY'], amount, decimals: 2, rounding: 'DOWN' })).toEqual({ JPY: '14044.64' });
    // Rounded from the exact product, not from a rounded rate: 10^6 USD in GBP.
    expect(list({ base: 'USD', symbols: ['GBP'], amount: Rational.parse('1000000'), decimals: 2 })).toEqual({ GBP: '769642.86' });
  });

  it('rounds base-EUR rates when decimals are asked for, and shows the amount as sent', () => {
    expect(list({ base: 'EUR', symbols: ['GBP'], decimals: 2 })).toEqual({ GBP: '0.86' });
    expect(
      listCrossRates(DAY, { base: 'EUR', symbols: ['USD'], amount: Rational.parse('2.50'), amountText: '2.50' }, noRate),
    ).toMatchObject({
      amount: '2.50',
      rates: { USD: '2.8' },
    });
  });

  it('blames the base or the symbol the publication does not quote', () => {
    expect(() => list({ base: 'RUB' })).toThrow(expect.objectContaining({ code: 'RATE_NOT_FOUND', param: 'base' }));
    expect(() => list({ base: 'USD', symbols: ['RUB'] })).toThrow(expect.objectContaining({ code: 'RATE_NOT_FOUND', param: 'symbols' }));
  });
});
