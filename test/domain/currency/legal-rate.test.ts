import { describe, expect, it } from 'vitest';
import { convertCurrency } from '../../../src/domain/currency/convert';
import { publishedCodeOn } from '../../../src/domain/currency/legal-rate';
import { parseCurrencyRequest, requireKnownCurrency, type CurrencyRequest } from '../../../src/domain/currency/request';
import { SUCCESSIONS, successionOf } from '../../../src/domain/currency/successions';
import type { Publication } from '../../../src/domain/ecb';

// Made-up rates in the ECB's form (units per euro), not real ECB data; the fixed rates are the law's.
const publication: Publication = { date: '2024-01-05', rates: { USD: '1.0949', JPY: '158.42', RON: '4.9720', TRY: '32.70', BHD: '0.41' } };
const quotingKuna: Publication = { date: '2022-12-30', rates: { USD: '1.0666', HRK: '7.5365' } };

const convert = (request: CurrencyRequest, day: string, on: Publication = publication) =>
  convertCurrency(parseCurrencyRequest(request), on, day);

const REG = 'Council Regulation (EC) No 2866/98, Article 1';
const HRK_ACT = `${REG}, as amended by Council Regulation (EU) 2022/1208`;

describe('a currency replaced by law converts at its fixed rate from the day of the change', () => {
  it.each([
    // [request, day asked, result, rate, source]
    [{ value: '75.345', from: 'HRK', to: 'EUR' }, '2024-01-05', '10', '0.1327228084146260534872917910942995553786', HRK_ACT],
    [{ value: '10', from: 'EUR', to: 'HRK' }, '2023-01-01', '75.345', '7.5345', HRK_ACT],
    [{ value: '75.345', from: 'HRK', to: 'USD' }, '2024-01-05', '10.949', '0.145318202933174065963235782069148583184', `ecb; ${HRK_ACT}`],
    [
      { value: '100', from: 'DEM', to: 'FRF' },
      '2001-06-01',
      '335.3854885138278889269517289334962650128',
      '3.353854885138278889269517289334962650128',
      REG,
    ],
    [{ value: '1.95583', from: 'dem', to: 'eur' }, '1999-01-04', '1', '0.5112918811962184852466727680831156082073', REG],
    [
      { value: '10000', from: 'ROL', to: 'RON' },
      '2006-03-01',
      '1',
      '0.0001',
      'Law No. 348/2004 on the denomination of the national currency (Romania), Article 1(1)',
    ],
    [
      { value: '1000000', from: 'TRL', to: 'EUR' },
      '2024-01-05',
      '0.03058103975535168195718654434250764525994',
      '0.00000003058103975535168195718654434250764525994',
      'ecb; Law No. 5083 on the Currency of the Republic of Turkey (2004), Article 1',
    ],
  ])('%j on %s gives %s at %s (%s)', (request, day, result, rate, source) => {
    const answer = convert(request, day);
    expect(answer.result.value).toBe(result);
    // A rate on the law alone needs no publication: it is the day's own; else the publication's.
    expect(answer.rate).toMatchObject({ date: source.startsWith('ecb') ? '2024-01-05' : day, value: rate, source });
  });

  it('lists each fixed rate used once, with its legal act', () => {
    expect(convert({ value: '1', from: 'HRK', to: 'USD' }, '2024-01-05').rate.fixed).toEqual([successionOf('HRK')]);
    expect(convert({ value: '1', from: 'DEM', to: 'DEM' }, '2024-01-05').rate.fixed).toEqual([successionOf('DEM')]);
    expect(convert({ value: '1', from: 'USD', to: 'JPY' }, '2024-01-05').rate).toMatchObject({ source: 'ecb', fixed: [] });
  });

  it('uses the ECB rate before the change, and RATE_NOT_FOUND when the ECB did not quote it', () => {
    expect(convert({ value: '7.5365', from: 'HRK', to: 'EUR' }, '2022-12-30', quotingKuna)).toMatchObject({
      result: { value: '1' },
      rate: { source: 'ecb', fixed: [] },
    });
    expect(() => convert({ value: '1', from: 'HRK', to: 'EUR' }, '2022-12-30')).toThrow(
      expect.objectContaining({ code: 'RATE_NOT_FOUND', param: 'from' }),
    );
  });

  it.each([
    ['HRK', '2022-12-31', 'HRK'],
    ['HRK', '2023-01-01', 'EUR'],
    ['TRL', '2005-01-01', 'TRY'],
    ['DEM', '1999-01-04', 'EUR'],
    ['USD', '2024-01-05', 'USD'],
  ])('%s on %s needs the published rate of %s', (code, day, published) => {
    expect(publishedCodeOn(code, day)).toBe(published);
  });

  it('knows the currencies of the euro’s first members as currencies', () => {
    for (const code of ['DEM', 'FRF', 'ITL', 'ESP', 'NLG', 'BEF', 'LUF', 'ATS', 'PTE', 'FIM', 'IEP', 'GRD']) {
      expect(() => requireKnownCurrency(code, 'from', new Set())).not.toThrow();
      expect(successionOf(code)).toMatchObject({ successor: 'EUR', kind: 'euro' });
    }
  });

  it.each([
    ['ATS', '13.7603'],
    ['BEF', '40.3399'],
    ['DEM', '1.95583'],
    ['ESP', '166.386'],
    ['FIM', '5.94573'],
    ['FRF', '6.55957'],
    ['IEP', '0.787564'],
    ['ITL', '1936.27'],
    ['LUF', '40.3399'],
    ['NLG', '2.20371'],
    ['PTE', '200.482'],
  ])('fixes 1 EUR = %s %s from 1999-01-01 by Council Regulation (EC) No 2866/98', (code, rate) => {
    expect(SUCCESSIONS.find((s) => s.code === code)).toEqual({
      code,
      successor: 'EUR',
      rate,
      since: '1999-01-01',
      kind: 'euro',
      source: REG,
    });
  });
});

describe('minorUnits rounds a currency result to the ISO 4217 minor units of `to`', () => {
  it.each([
    [{ value: '100', from: 'USD', to: 'JPY', minorUnits: true }, '14469'],
    [{ value: '100', from: 'USD', to: 'JPY', minorUnits: true, rounding: 'DOWN' }, '14468'],
    [{ value: '100', from: 'JPY', to: 'USD', minorUnits: true }, '0.69'],
    [{ value: '1', from: 'EUR', to: 'BHD', minorUnits: true }, '0.410'],
    [{ value: '100', from: 'DEM', to: 'ITL', minorUnits: true }, '99000'],
    [{ value: '100', from: 'USD', to: 'JPY', minorUnits: false }, '14468.90126952233080646634395835236094621'],
  ])('%j gives %s', (request, result) => {
    expect(convert(request, '2024-01-05').result.value).toBe(result);
  });

  it.each([
    [{ value: '1', from: 'USD', to: 'JPY', minorUnits: true, decimals: 2 }, /minorUnits and decimals/],
    [{ value: '1', from: 'USD', to: 'JPY', minorUnits: 'yes' }, /minorUnits must be true or false/],
  ])('%j is INVALID_REQUEST naming minorUnits', (request, message) => {
    expect(() => parseCurrencyRequest(request)).toThrow(
      expect.objectContaining({ code: 'INVALID_REQUEST', param: 'minorUnits', message: expect.stringMatching(message) }),
    );
  });
});
