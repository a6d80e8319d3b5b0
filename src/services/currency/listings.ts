import { memoizedLatestExplanation, type DateResolution, type NextPublication } from '../../domain/currency/explain-date';
import { listRates, type RatesListing } from '../../domain/currency/convert';
import { notQuoted } from '../../domain/currency/not-quoted';
import { parseAmountOptions, parseBase, parseSymbolList } from '../../domain/currency/query';
import { listCrossRates, type CrossListing } from '../../domain/currency/rates-listing';
import { parseDate, requireHistoryPlan, requireKnownCurrency } from '../../domain/currency/request';
import type { PlanId } from '../../domain/plans';
import { directReads, requireLatest, resolvePublication, type PublicationExplainer, type PublicationSource } from './publication';
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

/** The latest listing, with how today resolved to it and when the next publication is expected. */
export type LatestRates = RatesListing & { resolved: DateResolution; nextPublication: NextPublication };

/** One publication's rates as listed: the latest as published, or any day's against any base, with amounts. */
export interface RateListings {
  latest(): LatestRates;
  /** `loader` batches the publication reads of one request; without it each date is read directly. */
  ratesFor(query: RatesForQuery, plan: PlanId, loader?: PublicationSource): Promise<RatesAnswer>;
}

export function createRateListings(rates: RatesReader, clock: () => Date, explainer: PublicationExplainer): RateListings {
  const latestExplanation = memoizedLatestExplanation();
  const reads = directReads(rates);
  return {
    latest() {
      const latest = requireLatest(rates);
      return { ...listRates(latest), ...latestExplanation(latest.date, clock()) };
    },

    async ratesFor(query, plan, loader = reads) {
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
