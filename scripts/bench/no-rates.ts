import type { RatesReader } from '../../src/services/currency/rates';

/** A rates reader that holds nothing: unit conversions never read rates, so a bench without the history stays off the network. */
export const NO_RATES: RatesReader = {
  latest: () => undefined,
  resolveDate: () => undefined,
  loadPublications: async (dates) => dates.map(() => undefined),
  knownCurrencies: () => new Set(['EUR']),
  status: () => ({ date: null, fetchedAt: null, stale: true, missingPublications: null, lastError: null }),
  latestMaxAgeSeconds: () => 0,
};
