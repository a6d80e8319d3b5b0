import type { Publication } from '../ecb';
import { ApiError } from '../errors';
import { didYouMean, nearestNames } from '../nearest-names';
import { quoteInput } from '../quote-input';
import { CURRENCY_CODES } from './codes';
import { isoFacts } from './iso';
import { successionOf, type Succession } from './successions';

/** The first and last publication that quote a currency. */
export interface QuoteSpan {
  readonly first: string;
  readonly last: string;
}

/** Where the ECB's quotes of each currency begin and end, plus the newest publication of all. */
export interface QuoteSpans {
  readonly spans: ReadonlyMap<string, QuoteSpan>;
  /** The first and the newest publication held (EUR's span: every publication prices the euro). */
  readonly all: QuoteSpan | undefined;
  /** The codes the newest publication quotes. */
  readonly latestCodes: ReadonlySet<string>;
}

export const NO_SPANS: QuoteSpans = Object.freeze({ spans: new Map(), all: undefined, latestCodes: new Set<string>() });

/**
 * `previous` extended by `publications` (any order, any number of calls): a fold, so a caller can
 * feed the history in slices. Dates are YYYY-MM-DD, so string order is date order.
 */
export function extendSpans(previous: QuoteSpans, publications: Iterable<Publication | undefined>): QuoteSpans {
  const spans = new Map(previous.spans);
  let all = previous.all;
  let latestCodes = previous.latestCodes;
  for (const pub of publications) {
    if (!pub) continue;
    const { date } = pub;
    for (const code of Object.keys(pub.rates)) {
      const span = spans.get(code);
      if (!span) spans.set(code, { first: date, last: date });
      else if (date < span.first || date > span.last) {
        spans.set(code, { first: date < span.first ? date : span.first, last: date > span.last ? date : span.last });
      }
    }
    if (!all || date >= all.last) latestCodes = new Set(Object.keys(pub.rates));
    all = !all ? { first: date, last: date } : { first: date < all.first ? date : all.first, last: date > all.last ? date : all.last };
  }
  return { spans, all, latestCodes };
}

export function quoteSpans(publications: Iterable<Publication | undefined>): QuoteSpans {
  return extendSpans(NO_SPANS, publications);
}

export type CurrencyStatus = 'active' | 'retired';

/** One currency of the registry, as the API lists it. */
export interface CurrencyEntry {
  code: string;
  name: string;
  numericCode: string | null;
  minorUnits: number | null;
  /** The first ECB publication that quotes it (EUR: the first publication); null if none held does. */
  firstDate: string | null;
  /** The last ECB publication that quotes it (EUR: the newest publication); null if none held does. */
  lastDate: string | null;
  /** `active`: quoted in the newest publication held (EUR always, once any is held); else `retired`. */
  status: CurrencyStatus;
  /** The currency that replaced it by law, with the fixed rate; null when none did. */
  successor: Succession | null;
}

/** Every code converted: the known list (quoted or replaced by law) plus whatever the data holds, EUR first, then alphabetical. */
function registryCodes(spans: QuoteSpans): string[] {
  const codes = new Set([...CURRENCY_CODES, ...spans.spans.keys()]);
  codes.delete('EUR');
  return ['EUR', ...[...codes].sort()];
}

export function currencyEntry(code: string, spans: QuoteSpans): CurrencyEntry {
  const span = code === 'EUR' ? spans.all : spans.spans.get(code);
  const active = code === 'EUR' ? spans.all !== undefined : spans.latestCodes.has(code);
  return {
    code,
    ...isoFacts(code),
    firstDate: span?.first ?? null,
    lastDate: span?.last ?? null,
    status: active ? 'active' : 'retired',
    successor: successionOf(code) ?? null,
  };
}

/** The registry: every currency the ECB has ever quoted or the law replaced at a fixed rate, EUR first. */
export function buildRegistry(spans: QuoteSpans): CurrencyEntry[] {
  return registryCodes(spans).map((code) => currencyEntry(code, spans));
}

/**
 * One currency by a path segment: case-insensitive. Anything that is not a currency of the registry
 * (malformed or never quoted) is NOT_FOUND, as an unknown unit or category in a path is (contract §2).
 */
export function findCurrency(registry: readonly CurrencyEntry[], code: unknown, param = 'code'): CurrencyEntry {
  const upper = typeof code === 'string' && code.length === 3 ? code.toUpperCase() : undefined;
  const entry = upper === undefined ? undefined : registry.find((e) => e.code === upper);
  if (!entry) {
    const shown = typeof code === 'string' ? quoteInput(code) : 'that';
    const hint =
      typeof code === 'string'
        ? didYouMean(
            nearestNames(
              code,
              registry.map((e) => e.code),
            ),
          )
        : '';
    throw new ApiError('NOT_FOUND', `Currency ${shown} is not supported${hint}.`, { param, seeAlso: 'currencies' });
  }
  return entry;
}
