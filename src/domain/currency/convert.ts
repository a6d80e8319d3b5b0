import { formatDecimal } from '../decimal';
import type { Publication } from '../ecb';
import { ApiError } from '../errors';
import { isoFacts } from './iso';
import { euroRate, fixedRates, rateSource } from './legal-rate';
import { RATE_SOURCE, rateOf } from './published-rate';
import type { ParsedCurrencyRequest } from './request';
import type { Succession } from './successions';

export { RATE_SOURCE, rateOf } from './published-rate';

export interface CurrencyConversion {
  input: { value: string; unit: string };
  result: { value: string; unit: string };
  rate: {
    date: string;
    /** "ecb", the legal acts of the fixed rates used, or both separated by "; " (legal-rate.ts). */
    source: string;
    value: string;
    /** The legal successions whose fixed rates the rate rests on; empty when on published rates only. */
    fixed: readonly Succession[];
  };
}

/**
 * value × toRate ÷ fromRate as one exact rational, rounded once at the end (spec); the rate shown
 * is toRate ÷ fromRate under the unrounded 40-significant-digit rule. `day` is the day asked for
 * (today without a date): from the day the law replaced a currency, its fixed rate is used
 * (legal-rate.ts) and `fixed` lists the successions the rate rests on.
 */
export function convertCurrency(request: ParsedCurrencyRequest, publication: Publication, day: string): CurrencyConversion {
  const from = euroRate(publication, request.from, day, 'from');
  const to = euroRate(publication, request.to, day, 'to');
  const cross = to.perEuro.div(from.perEuro);
  const source = rateSource([from, to]);
  const decimals = request.minorUnits ? minorUnitsOf(request.to) : request.decimals;
  return {
    input: { value: request.text, unit: request.from },
    result: { value: formatDecimal(request.value.mul(cross), decimals, request.rounding), unit: request.to },
    rate: { date: lawAlone(source) ? day : publication.date, source, value: formatDecimal(cross), fixed: fixedRates([from, to]) },
  };
}

/**
 * True when a rate rests on the law alone (DEM to EUR after 1999, DEM to FRF): an irrevocable fixed
 * rate, the same on every day, needs no publication, so it is the day asked's own rate, never an
 * older publication's carried forward, nor stale when the publications held are behind.
 */
export function lawAlone(source: string): boolean {
  return !source.split('; ').includes(RATE_SOURCE);
}

/** ISO 4217 minor units of a currency converted to; a code with none known cannot be rounded to them. */
export function minorUnitsOf(code: string): number {
  const { minorUnits } = isoFacts(code);
  if (minorUnits === null) {
    throw new ApiError('INVALID_REQUEST', `minorUnits: ISO 4217 gives ${code} no minor units; use decimals instead.`, {
      param: 'minorUnits',
    });
  }
  return minorUnits;
}

export interface RatesListing {
  date: string;
  base: 'EUR';
  source: typeof RATE_SOURCE;
  rates: Record<string, string>;
}

/** A publication as the API lists it: EUR first ("1"), then the requested codes or all in ECB order. */
export function listRates(publication: Publication, symbols?: readonly string[]): RatesListing {
  const codes = symbols ?? ['EUR', ...Object.keys(publication.rates)];
  const rates: Record<string, string> = {};
  for (const code of codes) rates[code] = rateOf(publication, code, 'symbols');
  return { date: publication.date, base: 'EUR', source: RATE_SOURCE, rates };
}
