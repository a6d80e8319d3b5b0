import { berlinDate } from '../domain/calendar/berlin-time';
import { memoizedDateExplainer, memoizedLatestExplanation, type DateResolution, type NextPublication } from '../domain/currency/explain-date';
import { publishedRate } from '../domain/currency/cross';
import { notQuoted, type Asked } from '../domain/currency/not-quoted';
import { parseAmountOptions, parseBase, parseSymbolList } from '../domain/currency/query';
import { findCurrency, type CurrencyEntry } from '../domain/currency/registry';
import { listCrossRates, type CrossListing } from '../domain/currency/rates-listing';
import { currencyCodeShape, parseDate, requireHistoryPlan, requireKnownCurrency, requirePossibleDate } from '../domain/currency/request';
import type { Publication } from '../domain/ecb';
import { ApiError } from '../domain/errors';
import type { PlanId } from '../domain/plans';
import { RATES_RETRY_AFTER_SECONDS, type PublicationLoader } from './publication';
import { historyFacts, type HistoryFactsOf } from './currency-history';
import { createSeries, type SeriesAnswer, type SeriesPlan, type SeriesQuery, type SeriesStream } from './currency-series';

export type { SeriesAnswer, SeriesPlan, SeriesQuery, SeriesStream } from './currency-series';
import type { RatesReader } from './rates';

export interface RatesForQuery {
  date?: unknown;
  base?: unknown;
  symbols?: unknown;
  amount?: unknown;
  decimals?: unknown;
  rounding?: unknown;
}

/** A listing of one publication against any base, and how the date asked for resolved to it. */
export interface RatesAnswer extends CrossListing {
  resolved: DateResolution;
  /** Without `date` (the latest publication): when the next one is expected. */
  nextPublication?: NextPublication;
}

export interface Currencies {
  listCurrencies(): Promise<CurrencyEntry[]>;
  /** INVALID_REQUEST for a code not written as three letters; NOT_FOUND for one the registry does not hold. */
  getCurrency(code: unknown): Promise<CurrencyEntry>;
  ratesFor(query: RatesForQuery, plan: PlanId, loader?: PublicationLoader): Promise<RatesAnswer>;
  series(query: SeriesQuery, plan: PlanId): Promise<SeriesAnswer>;
  /** The page a series query asks for, checked and decided without reading a publication (what an export's cache key and cost are made of). */
  planSeries(query: SeriesQuery, plan: PlanId): SeriesPlan;
  /** The answer to a planned page: its publications read, its currencies checked. */
  answerSeries(plan: SeriesPlan): Promise<SeriesAnswer>;
  /** The same page to be written as it is read (an export): its columns and currencies checked first, its entries read a slice at a time. */
  streamSeries(plan: SeriesPlan): Promise<SeriesStream>;
}

/** The currency use cases beyond the daily feed: the registry, any base, amounts, time series. */
export function createCurrencies(rates: RatesReader, clock: () => Date, facts: HistoryFactsOf = historyFacts(rates)): Currencies {
  const requireRates = (): Publication => {
    const latest = rates.latest();
    if (!latest) throw new ApiError('SERVICE_UNAVAILABLE', 'Currency rates are not loaded yet; retry later.', { retryAfterSeconds: RATES_RETRY_AFTER_SECONDS });
    return latest;
  };
  const missing = async (code: string, asked: Asked, param: string): Promise<ApiError> =>
    notQuoted(code, asked, (await facts()).spans.spans.get(code), param);
  const latestExplanation = memoizedLatestExplanation();
  const series = createSeries(rates, clock, requireRates, missing, () => facts.settled?.()?.spans);
  const explainDate = memoizedDateExplainer();
  const load = async (date: string, loader?: PublicationLoader): Promise<Publication | undefined> =>
    loader ? loader.load(date) : (await rates.loadPublications([date]))[0];

  return {
    async listCurrencies() {
      requireRates();
      return (await facts()).registry;
    },

    async getCurrency(code) {
      // A path segment that is not written like a code is a malformed input (400), one that is but
      // names no currency of the registry is not found (404).
      const shaped = currencyCodeShape(code, 'code');
      requireRates();
      return findCurrency((await facts()).registry, shaped);
    },

    async ratesFor(query, plan, loader) {
      const date = parseDate(query.date);
      const base = parseBase(query.base);
      const symbols = parseSymbolList(query.symbols);
      const options = parseAmountOptions(query);
      requireHistoryPlan(date, plan);
      for (const code of [base, ...(symbols ?? [])]) requireKnownCurrency(code, code === base ? 'base' : 'symbols', rates.knownCurrencies());
      if (date !== undefined) requirePossibleDate(date, berlinDate(clock()));
      const latest = requireRates();
      const resolvedDate = date === undefined ? latest.date : rates.resolveDate(date);
      const publication = resolvedDate === undefined ? undefined : await load(resolvedDate, loader);
      if (!publication) throw new ApiError('RATE_NOT_FOUND', `There are no ECB rates on or before ${date}.`, { param: 'date' });
      const absent = [base, ...(symbols ?? [])].find((code) => !publishedRate(publication, code));
      if (absent !== undefined) throw await missing(absent, { date: publication.date }, absent === base ? 'base' : 'symbols');
      const listing = listCrossRates(publication, { base, symbols, ...options }, (code, param) => notQuoted(code, { date: publication.date }, undefined, param));
      if (date !== undefined) return { ...listing, resolved: explainDate(date, publication.date, latest.date, clock()) };
      return { ...listing, ...latestExplanation(latest.date, clock()) };
    },

    series: async (query, plan) => series.answer(series.plan(query, plan)),
    planSeries: series.plan,
    answerSeries: series.answer,
    streamSeries: series.stream,
  };
}
