import { addDays, berlinDate } from '../domain/calendar/berlin-time';
import { memoizedDateExplainer, memoizedLatestExplanation, type DateResolution, type NextPublication } from '../domain/currency/explain-date';
import { publishedRate } from '../domain/currency/cross';
import { notQuoted, type Asked } from '../domain/currency/not-quoted';
import { decodeCursor, isPageComplete, pageOf } from '../domain/currency/series-pages';
import { parseAmountOptions, parseBase, parseGroup, parseRange, parseSymbolList } from '../domain/currency/query';
import { findCurrency, type CurrencyEntry } from '../domain/currency/registry';
import { listCrossRates, type CrossListing } from '../domain/currency/rates-listing';
import { FIRST_PUBLICATION, currencyCodeShape, parseDate, requireHistoryPlan, requireKnownCurrency, requirePossibleDate } from '../domain/currency/request';
import { seriesCodes, seriesEntries, type SeriesEntry } from '../domain/currency/series';
import type { SeriesGroup } from '../domain/currency/periods';
import type { Publication } from '../domain/ecb';
import { ApiError } from '../domain/errors';
import { planAllowsHistory, type PlanId } from '../domain/plans';
import { RATES_RETRY_AFTER_SECONDS, type PublicationLoader } from './currency';
import { allDates, datesBetween, historyFacts, loadAll, type HistoryFacts } from './currency-history';
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

export interface SeriesQuery {
  start?: unknown;
  end?: unknown;
  base?: unknown;
  symbols?: unknown;
  group?: unknown;
  cursor?: unknown;
}

/** One page of a series: the range it covers, its columns, and its entries (a fresh generator per call). */
export interface SeriesAnswer {
  start: string;
  end: string;
  base: string;
  group: SeriesGroup;
  source: 'ecb';
  /** The codes of every entry, in order (the CSV columns). */
  symbols: string[];
  /** The cursor of the next page; null on the last one. */
  nextCursor: string | null;
  /**
   * True when the answer to this query can no longer change (an ECB correction of a past day
   * aside): the page, as asked and not clipped to today, ends before the next expected publication.
   */
  complete: boolean;
  entries(): Generator<SeriesEntry>;
}

export interface Currencies {
  listCurrencies(): Promise<CurrencyEntry[]>;
  /** INVALID_REQUEST for a code not written as three letters; NOT_FOUND for one the registry does not hold. */
  getCurrency(code: unknown): Promise<CurrencyEntry>;
  ratesFor(query: RatesForQuery, plan: PlanId, loader?: PublicationLoader): Promise<RatesAnswer>;
  series(query: SeriesQuery, plan: PlanId): Promise<SeriesAnswer>;
}

/** The currency use cases beyond the daily feed: the registry, any base, amounts, time series. */
export function createCurrencies(rates: RatesReader, clock: () => Date, facts: () => Promise<HistoryFacts> = historyFacts(rates)): Currencies {
  const requireRates = (): Publication => {
    const latest = rates.latest();
    if (!latest) throw new ApiError('SERVICE_UNAVAILABLE', 'Currency rates are not loaded yet; retry later.', { retryAfterSeconds: RATES_RETRY_AFTER_SECONDS });
    return latest;
  };
  const missing = async (code: string, asked: Asked, param: string): Promise<ApiError> =>
    notQuoted(code, asked, (await facts()).spans.spans.get(code), param);
  const latestExplanation = memoizedLatestExplanation();
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

    async series(query, plan) {
      const { start, end } = parseRange(query);
      const base = parseBase(query.base);
      const symbols = parseSymbolList(query.symbols);
      const group = parseGroup(query.group);
      const range = { start, end, group };
      const cursor = query.cursor === undefined || query.cursor === null ? undefined : decodeCursor(query.cursor, range);
      if (!planAllowsHistory(plan)) throw new ApiError('PLAN_REQUIRED', 'Time series need the Developer plan or higher.');
      for (const code of [base, ...(symbols ?? [])]) requireKnownCurrency(code, code === base ? 'base' : 'symbols', rates.knownCurrencies());
      const newest = requireRates().date;
      const dates = allDates(rates);
      // The first page starts at the first publication held when the range starts before it.
      const first = dates[0] ?? FIRST_PUBLICATION;
      const from = cursor ?? (start < first ? first : start);
      const today = berlinDate(clock());
      const page = pageOf(range, from);
      const to = page.to < today ? page.to : today;
      if (from > to) throw new ApiError('RATE_NOT_FOUND', `There are no ECB rates from ${start} to ${end}.`, { param: 'start' });
      const publications = await loadAll(rates, datesBetween(dates, from, to));
      if (publications.length === 0) throw new ApiError('RATE_NOT_FOUND', `There are no ECB publications from ${from} to ${to}.`, { param: 'start' });
      for (const code of [base, ...(symbols ?? [])]) {
        if (!publications.some((pub) => publishedRate(pub, code))) throw await missing(code, { start: from, end: to }, code === base ? 'base' : 'symbols');
      }
      const codes = symbols ?? seriesCodes(publications, base);
      const more = page.nextCursor !== undefined && addDays(page.to, 1) <= today;
      const complete = isPageComplete(page, more, newest, clock());
      return {
        start: from,
        end: to,
        base,
        group,
        source: 'ecb',
        symbols: codes,
        nextCursor: more ? page.nextCursor! : null,
        complete,
        entries: () => seriesEntries(publications, { base, codes, group }),
      };
    },
  };
}
