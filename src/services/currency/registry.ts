import { findCurrency } from '../../domain/currency/registry';
import { currencyCodeShape } from '../../domain/currency/request';
import { sourcedRegistry, type SourcedCurrencyEntry } from '../../domain/sources/registry';
import { ECB_ONLY, type HeldSources } from './held-sources';
import type { HistoryFactsOf } from './history';
import { requireLatest } from './publication';
import type { RatesReader } from './rates';

/** Every currency any served source has quoted, with the sources that quote it and their dates. */
export interface CurrencyRegistry {
  listCurrencies(): Promise<SourcedCurrencyEntry[]>;
  /** INVALID_REQUEST for a code not written as three letters; NOT_FOUND for one the registry does not hold. */
  getCurrency(code: unknown): Promise<SourcedCurrencyEntry>;
}

export function createCurrencyRegistry(rates: RatesReader, facts: HistoryFactsOf, held: HeldSources = ECB_ONLY): CurrencyRegistry {
  // The merged registry is kept per (ECB registry, sources' history): both are new objects on each change.
  let kept: { ecb: unknown; history: unknown; registry: SourcedCurrencyEntry[] } | undefined;
  const registry = async (): Promise<SourcedCurrencyEntry[]> => {
    requireLatest(rates);
    const ecb = (await facts()).registry;
    const history = held.history();
    if (kept?.ecb !== ecb || kept.history !== history) kept = { ecb, history, registry: sourcedRegistry(ecb, history, held.enabled()) };
    return kept.registry;
  };
  return {
    listCurrencies: registry,

    async getCurrency(code) {
      // A path segment that is not written like a code is a malformed input (400), one that is but
      // names no currency of the registry is not found (404).
      const shaped = currencyCodeShape(code, 'code');
      return findCurrency(await registry(), shaped) as SourcedCurrencyEntry;
    },
  };
}
