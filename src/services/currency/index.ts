import { createCurrencyConverter, type CurrencyConverter } from './converter';
import { ECB_ONLY, type HeldSources } from './held-sources';
import { historyFacts, type HistoryFactsOf } from './history';
import { createRateListings, type RateListings } from './listings';
import { createPublicationExplainer } from './publication';
import type { RatesReader } from './rates';
import { createCurrencyRegistry, type CurrencyRegistry } from './registry';
import { createRateSeries, type RateSeries } from './series';

/** The currency use cases, on one rates reader, one clock and one computation of the whole history's facts. */
export interface CurrencyServices {
  readonly converter: CurrencyConverter;
  readonly registry: CurrencyRegistry;
  readonly listings: RateListings;
  readonly series: RateSeries;
}

/**
 * `facts` (the quote spans of the whole history, history.ts) let a RATE_NOT_FOUND say when the
 * currency was last quoted and the fixed rate to use, and build the registry; every use case shares
 * them and one explainer, so conversions, listings and unit expressions explain a date alike.
 */
export function createCurrencyServices(
  rates: RatesReader,
  clock: () => Date,
  facts: HistoryFactsOf = historyFacts(rates),
  sources: HeldSources = ECB_ONLY,
): CurrencyServices {
  const explainer = createPublicationExplainer(rates, clock, facts);
  return {
    converter: createCurrencyConverter(rates, clock, explainer, sources),
    registry: createCurrencyRegistry(rates, facts, sources),
    listings: createRateListings(rates, clock, explainer, sources),
    series: createRateSeries(rates, clock, facts, sources),
  };
}
