import { RateTable, type Publication } from '../../src/domain/ecb';
import type { RatesReader, RatesStatus } from '../../src/services/currency/rates';

/**
 * A RatesReader over an in-memory RateTable, standing in for the cache-backed service where a
 * test is about request handling, not about loading rates. Counts publication reads.
 */
export function tableRates(publications: Publication[], status: Partial<RatesStatus> = {}) {
  const table = RateTable.from(publications);
  const reads: string[][] = [];
  const reader: RatesReader & { reads: string[][] } = {
    reads,
    latest: () => table.latest,
    resolveDate: (date) => table.resolve(date)?.date,
    loadPublications: async (dates) => {
      reads.push([...dates]);
      return dates.map((d) => table.get(d));
    },
    knownCurrencies: () => table.knownCurrencies(),
    publicationDates: () => table.dates(),
    status: (): RatesStatus => ({
      date: table.latest?.date ?? null,
      fetchedAt: null,
      stale: false,
      missingPublications: table.latest ? 0 : null,
      lastError: null,
      ...status,
    }),
    latestMaxAgeSeconds: () => 1800,
  };
  return reader;
}

/** Made-up publications in the ECB's form (not real ECB data): a Thursday, then a Friday without GBP. */
export const MADE_UP_PUBLICATIONS: Publication[] = [
  { date: '2024-03-27', rates: { USD: '1.0830', JPY: '163.96', GBP: '0.85730', RUB: '99.50' } },
  { date: '2024-03-28', rates: { USD: '1.0811', JPY: '163.45', GBP: '0.85550' } },
  { date: '2024-04-02', rates: { USD: '1.0764', JPY: '163.02' } },
];

/**
 * tableRates that can be replaced by new publications, announcing each replacement to its
 * `onRevision` listeners as the cache-backed service does. `reads` counts reads across replacements.
 */
export function revisableRates(publications: Publication[]) {
  let current = tableRates(publications);
  const reads: string[][] = [];
  const listeners = new Set<() => void>();
  const reader: RatesReader & { reads: string[][]; publish(next: Publication[]): void } = {
    reads,
    latest: () => current.latest(),
    resolveDate: (date) => current.resolveDate(date),
    loadPublications: async (dates) => {
      reads.push([...dates]);
      return current.loadPublications(dates);
    },
    knownCurrencies: () => current.knownCurrencies(),
    publicationDates: () => current.publicationDates!(),
    onRevision: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    status: () => current.status(),
    latestMaxAgeSeconds: () => current.latestMaxAgeSeconds(),
    publish(next) {
      current = tableRates(next);
      for (const listener of listeners) listener();
    },
  };
  return reader;
}

/** A reader whose publication reads wait at a gate once it is closed: an export held in flight for as long as a test needs. */
export function gatedRates(publications: Publication[]) {
  const inner = tableRates(publications);
  let gate: { opened: Promise<void>; open: () => void } | undefined;
  let waiting = 0;
  const reader: RatesReader & { close(): void; open(): void; waiting(): number } = {
    ...inner,
    loadPublications: async (dates) => {
      if (gate) {
        waiting += 1;
        await gate.opened;
        waiting -= 1;
      }
      return inner.loadPublications(dates);
    },
    close() {
      let open!: () => void;
      gate = { opened: new Promise((resolve) => (open = resolve)), open };
    },
    open() {
      gate?.open();
      gate = undefined;
    },
    waiting: () => waiting,
  };
  return reader;
}
