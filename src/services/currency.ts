import type DataLoader from 'dataloader';
import { convertCurrency, listRates, type CurrencyConversion, type RatesListing } from '../domain/currency/convert';
import {
  parseCurrencyRequest,
  parseDate,
  parseSymbols,
  requireHistoryPlan,
  requireKnownCurrency,
  type CurrencyRequest,
} from '../domain/currency/request';
import type { Publication } from '../domain/ecb';
import type { PlanId } from '../domain/plans';
import { ratesUnavailable, resolvePublication } from './publication';
import type { RatesReader } from './rates';

export type PublicationLoader = DataLoader<string, Publication | undefined>;

export interface Currency {
  /** A currency conversion; `loader` batches the publication reads of one request. */
  convert(request: CurrencyRequest, plan: PlanId, loader: PublicationLoader): Promise<CurrencyConversion>;
  rates(query: { date?: unknown; symbols?: unknown }, plan: PlanId, loader: PublicationLoader): Promise<RatesListing>;
  latest(): RatesListing;
}

export { RATES_RETRY_AFTER_SECONDS } from './publication';

export function createCurrency(rates: RatesReader, clock: () => Date): Currency {
  const publicationFor = (date: string | undefined, loader: PublicationLoader): Promise<Publication> =>
    resolvePublication(rates, clock, date, loader);

  return {
    async convert(request, plan, loader) {
      const parsed = parseCurrencyRequest(request);
      requireHistoryPlan(parsed.date, plan);
      requireKnownCurrency(parsed.from, 'from', rates.knownCurrencies());
      requireKnownCurrency(parsed.to, 'to', rates.knownCurrencies());
      return convertCurrency(parsed, await publicationFor(parsed.date, loader));
    },

    async rates(query, plan, loader) {
      const date = parseDate(query.date);
      const symbols = parseSymbols(query.symbols);
      requireHistoryPlan(date, plan);
      for (const code of symbols ?? []) requireKnownCurrency(code, 'symbols', rates.knownCurrencies());
      return listRates(await publicationFor(date, loader), symbols);
    },

    latest() {
      const latest = rates.latest();
      if (!latest) throw ratesUnavailable();
      return listRates(latest);
    },
  };
}
