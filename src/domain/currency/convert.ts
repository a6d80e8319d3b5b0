import { formatDecimal } from '../decimal';
import type { Publication } from '../ecb';
import { ApiError } from '../errors';
import { Rational } from '../rational';
import type { ParsedCurrencyRequest } from './request';

export const RATE_SOURCE = 'ecb';

export interface CurrencyConversion {
  input: { value: string; unit: string };
  result: { value: string; unit: string };
  rate: { date: string; source: typeof RATE_SOURCE; value: string };
}

/** Units of `code` per euro on that publication, exactly as published ("1" for EUR). */
export function rateOf(publication: Publication, code: string, param: string): string {
  if (code === 'EUR') return '1';
  const rate = publication.rates[code];
  if (rate === undefined) {
    throw new ApiError('RATE_NOT_FOUND', `The ECB did not quote ${code} on ${publication.date}.`, { param });
  }
  return rate;
}

/**
 * value × toRate ÷ fromRate as one exact rational, rounded once at the end (spec); the rate shown
 * is toRate ÷ fromRate under the unrounded 40-significant-digit rule.
 */
export function convertCurrency(request: ParsedCurrencyRequest, publication: Publication): CurrencyConversion {
  const fromRate = Rational.parse(rateOf(publication, request.from, 'from'));
  const toRate = Rational.parse(rateOf(publication, request.to, 'to'));
  const cross = toRate.div(fromRate);
  return {
    input: { value: request.text, unit: request.from },
    result: { value: formatDecimal(request.value.mul(cross), request.decimals, request.rounding), unit: request.to },
    rate: { date: publication.date, source: RATE_SOURCE, value: formatDecimal(cross) },
  };
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
