import type DataLoader from 'dataloader';
import { convertCurrency, listRates, type CurrencyConversion, type RatesListing } from '../domain/currency/convert';
import { parseCurrencyRequest, requireHistoryPlan, requireKnownCurrency, type CurrencyRequest } from '../domain/currency/request';
import type { Publication } from '../domain/ecb';
import type { PlanId } from '../domain/plans';
import { ratesUnavailable, resolvePublication } from './publication';
import type { RatesReader } from './rates';
import { notQuoted } from '../domain/currency/not-quoted';
import type { HistoryFacts } from './currency-history';
import { explainDate, memoizedLatestExplanation, type DateResolution, type NextPublication } from '../domain/currency/explain-date';

/** The latest listing, with how today resolved to it and when the next publication is expected. */
export type LatestRates = RatesListing & { resolved: DateResolution; nextPublication: NextPublication };

/** A conversion whose rate says how the day asked for resolved to the publication used. */
export type ExplainedConversion = CurrencyConversion & { rate: CurrencyConversion['rate'] & { resolved: DateResolution } };

export type PublicationLoader = DataLoader<string, Publication | undefined>;

export interface Currency {
  /** A currency conversion; `loader` batches the publication reads of one request. */
  convert(request: CurrencyRequest, plan: PlanId, loader: PublicationLoader): Promise<ExplainedConversion>;
  latest(): LatestRates;
}

export { RATES_RETRY_AFTER_SECONDS } from './publication';

/**
 * `facts` (the quote spans of the whole history, services/currency-history.ts) lets a RATE_NOT_FOUND
 * say when the currency was last quoted and the fixed rate to use; without it the message is plain.
 */
export function createCurrency(rates: RatesReader, clock: () => Date, facts?: () => Promise<HistoryFacts>): Currency {
  const publicationFor = (date: string | undefined, loader: PublicationLoader): Promise<Publication> =>
    resolvePublication(rates, clock, date, loader);

  /** The explained RATE_NOT_FOUND for the first code the publication does not quote, if any. */
  const requireQuoted = async (publication: Publication, codes: readonly (readonly [string, string])[]): Promise<void> => {
    const absent = codes.find(([code]) => code !== 'EUR' && publication.rates[code] === undefined);
    if (absent && facts) throw notQuoted(absent[0], { date: publication.date }, (await facts()).spans.spans.get(absent[0]), absent[1]);
  };

  const latestExplanation = memoizedLatestExplanation();
  /** How `date` (or today, without one) resolved to `publication`. */
  const resolution = (date: string | undefined, publication: Publication): DateResolution => {
    const newest = rates.latest()?.date ?? publication.date;
    return date === undefined ? latestExplanation(newest, clock()).resolved : explainDate(date, publication.date, newest);
  };

  return {
    async convert(request, plan, loader) {
      const parsed = parseCurrencyRequest(request);
      requireHistoryPlan(parsed.date, plan);
      requireKnownCurrency(parsed.from, 'from', rates.knownCurrencies());
      requireKnownCurrency(parsed.to, 'to', rates.knownCurrencies());
      const publication = await publicationFor(parsed.date, loader);
      await requireQuoted(publication, [[parsed.from, 'from'], [parsed.to, 'to']]);
      const conversion = convertCurrency(parsed, publication);
      return { ...conversion, rate: { ...conversion.rate, resolved: resolution(parsed.date, publication) } };
    },

    latest() {
      const latest = rates.latest();
      if (!latest) throw ratesUnavailable();
      return { ...listRates(latest), ...latestExplanation(latest.date, clock()) };
    },
  };
}
