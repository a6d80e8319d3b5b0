import { findCurrency, type CurrencyEntry } from '../../domain/currency/registry';
import { currencyCodeShape } from '../../domain/currency/request';
import type { HistoryFactsOf } from './history';
import { requireLatest } from './publication';
import type { RatesReader } from './rates';

/** Every currency the ECB has quoted, with the dates of its quotes (computed from the whole history). */
export interface CurrencyRegistry {
  listCurrencies(): Promise<CurrencyEntry[]>;
  /** INVALID_REQUEST for a code not written as three letters; NOT_FOUND for one the registry does not hold. */
  getCurrency(code: unknown): Promise<CurrencyEntry>;
}

export function createCurrencyRegistry(rates: RatesReader, facts: HistoryFactsOf): CurrencyRegistry {
  return {
    async listCurrencies() {
      requireLatest(rates);
      return (await facts()).registry;
    },

    async getCurrency(code) {
      // A path segment that is not written like a code is a malformed input (400), one that is but
      // names no currency of the registry is not found (404).
      const shaped = currencyCodeShape(code, 'code');
      requireLatest(rates);
      return findCurrency((await facts()).registry, shaped);
    },
  };
}
