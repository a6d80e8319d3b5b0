import type DataLoader from 'dataloader';
import { convertCurrency, listRates, type CurrencyConversion, type RatesListing } from '../domain/currency/convert';
import {
  parseCurrencyRequest,
  parseDate,
  parseSymbols,
  requireHistoryPlan,
  requireKnownCurrency,
  requirePossibleDate,
  type CurrencyRequest,
} from '../domain/currency/request';
import { berlinDate } from '../domain/calendar/berlin-time';
import type { Publication } from '../domain/ecb';
import { ApiError } from '../domain/errors';
import type { PlanId } from '../domain/plans';
import type { RatesReader } from './rates';
import { notQuoted } from '../domain/currency/not-quoted';
import type { HistoryFacts } from './currency-history';

export type PublicationLoader = DataLoader<string, Publication | undefined>;

export interface Currency {
  /** A currency conversion; `loader` batches the publication reads of one request. */
  convert(request: CurrencyRequest, plan: PlanId, loader: PublicationLoader): Promise<CurrencyConversion>;
  rates(query: { date?: unknown; symbols?: unknown }, plan: PlanId, loader: PublicationLoader): Promise<RatesListing>;
  latest(): RatesListing;
}

/** Seconds a client should wait before asking again while no rates have ever been loaded. */
export const RATES_RETRY_AFTER_SECONDS = 60;

/**
 * `facts` (the quote spans of the whole history, services/currency-history.ts) lets a RATE_NOT_FOUND
 * say when the currency was last quoted and the fixed rate to use; without it the message is plain.
 */
export function createCurrency(rates: RatesReader, clock: () => Date, facts?: () => Promise<HistoryFacts>): Currency {
  const unavailable = () =>
    new ApiError('SERVICE_UNAVAILABLE', 'Currency rates are not loaded yet; retry later.', {
      retryAfterSeconds: RATES_RETRY_AFTER_SECONDS,
    });

  /** The publication in effect on `date` (or the latest); callers have checked inputs and plan. */
  const publicationFor = async (date: string | undefined, loader: PublicationLoader): Promise<Publication> => {
    if (date !== undefined) requirePossibleDate(date, berlinDate(clock()));
    const latest = rates.latest();
    if (!latest) throw unavailable();
    if (date === undefined) return latest;
    const resolved = rates.resolveDate(date);
    const publication = resolved === undefined ? undefined : await loader.load(resolved);
    if (!publication) throw new ApiError('RATE_NOT_FOUND', `There are no ECB rates on or before ${date}.`, { param: 'date' });
    return publication;
  };

  /** The explained RATE_NOT_FOUND for the first code the publication does not quote, if any. */
  const requireQuoted = async (publication: Publication, codes: readonly (readonly [string, string])[]): Promise<void> => {
    const absent = codes.find(([code]) => code !== 'EUR' && publication.rates[code] === undefined);
    if (absent && facts) throw notQuoted(absent[0], { date: publication.date }, (await facts()).spans.spans.get(absent[0]), absent[1]);
  };

  return {
    async convert(request, plan, loader) {
      const parsed = parseCurrencyRequest(request);
      requireHistoryPlan(parsed.date, plan);
      requireKnownCurrency(parsed.from, 'from', rates.knownCurrencies());
      requireKnownCurrency(parsed.to, 'to', rates.knownCurrencies());
      const publication = await publicationFor(parsed.date, loader);
      await requireQuoted(publication, [[parsed.from, 'from'], [parsed.to, 'to']]);
      return convertCurrency(parsed, publication);
    },

    async rates(query, plan, loader) {
      const date = parseDate(query.date);
      const symbols = parseSymbols(query.symbols);
      requireHistoryPlan(date, plan);
      for (const code of symbols ?? []) requireKnownCurrency(code, 'symbols', rates.knownCurrencies());
      const publication = await publicationFor(date, loader);
      await requireQuoted(publication, (symbols ?? []).map((code) => [code, 'symbols'] as const));
      return listRates(publication, symbols);
    },

    latest() {
      const latest = rates.latest();
      if (!latest) throw unavailable();
      return listRates(latest);
    },
  };
}
