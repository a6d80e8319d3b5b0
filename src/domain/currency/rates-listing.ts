import type { Publication } from '../ecb';
import type { ApiError } from '../errors';
import { RATE_SOURCE } from './convert';
import { formatCross, publishedRate, servesPublishedStrings, type CrossOptions } from './cross';

/** A publication's rates against any base, optionally times an amount. */
export interface CrossListing {
  /** The publication used. */
  date: string;
  base: string;
  source: typeof RATE_SOURCE;
  /** The amount of `base` every rate is multiplied by, as sent; absent without one. */
  amount?: string;
  rates: Record<string, string>;
}

export interface ListingRequest extends CrossOptions {
  base: string;
  /** The codes to list, in this order; all quoted that day (EUR included) when absent. */
  symbols?: readonly string[] | undefined;
  /** The amount as the caller wrote it, shown back in the listing. */
  amountText?: string | undefined;
}

/**
 * The codes listed by default: the base first, then EUR, then the publication's codes in ECB order.
 * The base itself is "1" (or the amount): rate(base) ÷ rate(base).
 */
function defaultCodes(publication: Publication, base: string): string[] {
  const codes = [base, 'EUR', ...Object.keys(publication.rates)];
  return [...new Set(codes)];
}

/**
 * rate(code) ÷ rate(base) for each code, exact and rounded once per entry (cross.ts). With base EUR
 * and nothing to multiply or round, the ECB's strings as published. `missing(code, param)` is the
 * RATE_NOT_FOUND to throw for a code (or the base) the publication does not quote.
 */
export function listCrossRates(
  publication: Publication,
  request: ListingRequest,
  missing: (code: string, param: string) => ApiError,
): CrossListing {
  const base = publishedRate(publication, request.base);
  if (!base) throw missing(request.base, 'base');
  const codes = request.symbols ?? defaultCodes(publication, request.base);
  const published = servesPublishedStrings(request.base, request);
  const rates: Record<string, string> = {};
  for (const code of codes) {
    const rate = publishedRate(publication, code);
    if (!rate) throw missing(code, 'symbols');
    rates[code] = published ? (publication.rates[code] ?? '1') : formatCross(rate, base, request);
  }
  const listing: CrossListing = { date: publication.date, base: request.base, source: RATE_SOURCE, rates };
  if (request.amountText !== undefined) listing.amount = request.amountText;
  return listing;
}
