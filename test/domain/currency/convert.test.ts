import { describe, expect, it } from 'vitest';
import { convertCurrency, listRates, rateOf } from '../../../src/domain/currency/convert';
import {
  parseCurrencyRequest,
  requireKnownCurrency,
  requirePossibleDate,
  type CurrencyRequest,
} from '../../../src/domain/currency/request';
import type { Publication } from '../../../src/domain/ecb';
import { ApiError } from '../../../src/domain/errors';

// Made-up rates in the ECB's form (units per euro), not real ECB data.
const day: Publication = { date: '2024-03-28', rates: { USD: '1.0811', JPY: '163.45', GBP: '0.85550', ISK: '149.30' } };

const convert = (request: CurrencyRequest) => convertCurrency(parseCurrencyRequest(request), day, day.date);

describe('currency conversion is value × toRate ÷ fromRate, exactly, rounded once', () => {
  it.each([
    [{ value: '100', from: 'EUR', to: 'USD' }, '108.11', '1.0811'],
    [{ value: '108.11', from: 'USD', to: 'EUR' }, '100', '0.9249838127832762926648783646286189991675'],
    [{ value: '1', from: 'usd', to: 'gbp' }, '0.7913236518360928683748034409397835537878', '0.7913236518360928683748034409397835537878'],
    [{ value: '100', from: 'USD', to: 'JPY', decimals: 0 }, '15119', '151.1886041994265100360743686985477754139'],
    [{ value: '100', from: 'USD', to: 'JPY', decimals: 2, rounding: 'DOWN' }, '15118.86', '151.1886041994265100360743686985477754139'],
    [{ value: '-5', from: 'EUR', to: 'EUR' }, '-5', '1'],
    [{ value: '0.01', from: 'GBP', to: 'ISK', decimals: 2 }, '1.75', '174.5178258328462887200467562828755113968'],
  ])('%j gives %s at the rate %s', (request, result, rate) => {
    const answer = convert(request);
    expect(answer.result.value).toBe(result);
    expect(answer.rate).toEqual({ date: '2024-03-28', source: 'ecb', value: rate, fixed: [] });
  });

  it('names codes upper-case and keeps the input value as sent', () => {
    expect(convert({ value: '10.50', from: 'usd', to: 'jpy' })).toMatchObject({
      input: { value: '10.50', unit: 'USD' },
      result: { unit: 'JPY' },
    });
  });

  it('rounds the result from the exact value, not from the rounded rate', () => {
    // 1 USD → GBP: 0.85550 / 1.0811 = 0.79132365183609…; 10^6 USD at 2 places must use every digit.
    expect(convert({ value: '1000000', from: 'USD', to: 'GBP', decimals: 2 }).result.value).toBe('791323.65');
  });
});

describe('currency rules', () => {
  it('answers RATE_NOT_FOUND for a known currency the publication does not quote', () => {
    expect(() => rateOf(day, 'RUB', 'from')).toThrow(expect.objectContaining({ code: 'RATE_NOT_FOUND', param: 'from' }));
  });

  it('answers UNKNOWN_CURRENCY only for codes the ECB never quoted', () => {
    expect(() => requireKnownCurrency('XYZ', 'to', new Set())).toThrow(expect.objectContaining({ code: 'UNKNOWN_CURRENCY', param: 'to' }));
    expect(() => requireKnownCurrency('RUB', 'to', new Set())).not.toThrow();
    expect(() => requireKnownCurrency('ABC', 'to', new Set(['ABC']))).not.toThrow();
  });

  it.each([
    ['1999-01-03', 'RATE_NOT_FOUND'],
    ['2026-11-22', 'RATE_NOT_FOUND'],
  ])('answers %s with %s (before the first publication or after today)', (date, code) => {
    expect(() => requirePossibleDate(date, '2026-11-21')).toThrow(expect.objectContaining({ code }));
  });

  it.each([
    [{ value: 1, from: 'USD', to: 'EUR' }, 'value'],
    [{ value: '1', from: 'US', to: 'EUR' }, 'from'],
    [{ value: '1', from: 'USD', to: 'euro' }, 'to'],
    [{ value: '1', from: 'USD', to: 'EUR', date: '2024-02-30' }, 'date'],
    [{ value: '1', from: 'USD', to: 'EUR', decimals: 41 }, 'decimals'],
  ])('answers INVALID_REQUEST for %j', (request, param) => {
    const error = (() => {
      try {
        parseCurrencyRequest(request);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', param });
  });

  it('lists a publication with EUR first, or the requested symbols in order', () => {
    expect(listRates(day)).toEqual({
      date: '2024-03-28',
      base: 'EUR',
      source: 'ecb',
      rates: { EUR: '1', USD: '1.0811', JPY: '163.45', GBP: '0.85550', ISK: '149.30' },
    });
    expect(listRates(day, ['GBP', 'USD']).rates).toEqual({ GBP: '0.85550', USD: '1.0811' });
  });
});
