import { memoizedLatestExplanation, type DateResolution, type NextPublication } from '../../domain/currency/explain-date';
import { listRates, type RatesListing } from '../../domain/currency/convert';
import { notQuoted } from '../../domain/currency/not-quoted';
import { parseAmountOptions, parseBase, parseSymbolList } from '../../domain/currency/query';
import { listCrossRates, type CrossListing } from '../../domain/currency/rates-listing';
import { parseDate, requireHistoryPlan, requireKnownCurrency, requirePossibleDate } from '../../domain/currency/request';
import type { PlanId } from '../../domain/plans';
import { directReads, requireLatest, resolvePublication, type PublicationExplainer, type PublicationSource } from './publication';
import type { RatesReader } from './rates';
import { listSourceRates } from '../../domain/sources/listing';
import type { SourceId } from '../../domain/sources/types';
import { berlinDate } from '../../domain/calendar/berlin-time';
import { ECB_ONLY, parseSource, type HeldSources } from './held-sources';

/** One source's listing: the same inputs, checked in the same order, on that source's figures. */
function sourceRatesFor(held: HeldSources, clock: () => Date, query: RatesForQuery, plan: PlanId, source: SourceId): RatesAnswer {
  const date = parseDate(query.date);
  const base = query.base === undefined || query.base === null ? undefined : parseBase(query.base);
  const symbols = parseSymbolList(query.symbols);
  const options = parseAmountOptions(query);
  requireHistoryPlan(date, plan);
  const today = berlinDate(clock());
  if (date !== undefined) requirePossibleDate(date, today);
  const requested = date ?? today;
  return listSourceRates(held.history(), { source, date, requested, base, symbols, ...options });
}

export interface RatesForQuery {
  date?: unknown;
  base?: unknown;
  symbols?: unknown;
  amount?: unknown;
  decimals?: unknown;
  rounding?: unknown;
  /** The source whose figures to list (absent: the ECB). */
  source?: unknown;
}

/** A listing of one publication against any base, and how the date asked for resolved to it. */
export interface RatesAnswer extends Omit<CrossListing, 'source'> {
  source: SourceId;
  resolved: DateResolution;
  /** Without `date` (the latest publication): when the next one is expected. */
  nextPublication?: NextPublication;
}

/** The latest listing, with how today resolved to it and when the next publication is expected. */
export type LatestRates = RatesListing & { resolved: DateResolution; nextPublication: NextPublication };

/** One publication's rates as listed: the latest as published, or any day's against any base, with amounts. */
export interface RateListings {
  latest(): LatestRates;
  /** `loader` batches the publication reads of one request; without it each date is read directly. */
  ratesFor(query: RatesForQuery, plan: PlanId, loader?: PublicationSource): Promise<RatesAnswer>;
}

export function createRateListings(
  rates: RatesReader,
  clock: () => Date,
  explainer: PublicationExplainer,
  held: HeldSources = ECB_ONLY,
): RateListings {
  const latestExplanation = memoizedLatestExplanation();
  const reads = directReads(rates);
  return {
    latest() {
      const latest = requireLatest(rates);
      return { ...listRates(latest), ...latestExplanation(latest.date, clock()) };
    },

    async ratesFor(query, plan, loader = reads) {
      const source = parseSource(query.source, held);
      if (source !== undefined && source !== 'ecb') return sourceRatesFor(held, clock, query, plan, source);
      const date = parseDate(query.date);
      const base = parseBase(query.base);
      const symbols = parseSymbolList(query.symbols);
      const options = parseAmountOptions(query);
      requireHistoryPlan(date, plan);
      const codes = [base, ...(symbols ?? [])].map((code) => [code, code === base ? 'base' : 'symbols'] as const);
      for (const [code, param] of codes) requireKnownCurrency(code, param, rates.knownCurrencies());
      const publication = await resolvePublication(rates, clock, date, loader);
      await explainer.requireQuoted(publication, codes);
      const listing = listCrossRates(publication, { base, symbols, ...options }, (code, param) =>
        notQuoted(code, { date: publication.date }, undefined, param),
      );
      if (date !== undefined) return { ...listing, resolved: explainer.resolution(date, publication) };
      // Without a date the publication is the latest: its explanation also says when the next one is expected.
      return { ...listing, ...latestExplanation(publication.date, clock()) };
    },
  };
}
