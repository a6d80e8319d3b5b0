import { addDays } from '../../domain/calendar/berlin-time';
import { buildRegistry, extendSpans, NO_SPANS, type CurrencyEntry, type QuoteSpans } from '../../domain/currency/registry';
import type { RatesReader } from './rates';

/** Publications read per cache call while the whole history is folded: bounds the memory it takes. */
const SLICE = 1024;

/** What the whole history gives: where each currency's quotes begin and end, and the registry. */
export interface HistoryFacts {
  spans: QuoteSpans;
  registry: CurrencyEntry[];
}

/** Every stored date, oldest first: the reader's own list, else found by walking back from the latest. */
export function allDates(rates: RatesReader): readonly string[] {
  const listed = rates.publicationDates?.();
  if (listed) return listed;
  const dates: string[] = [];
  for (let date = rates.latest()?.date; date !== undefined; date = rates.resolveDate(addDays(date, -1))) dates.push(date);
  return dates.reverse();
}

/** The stored dates in [from, to], by binary search on the sorted list. */
export function datesBetween(dates: readonly string[], from: string, to: string): readonly string[] {
  const lowerBound = (date: string): number => {
    let low = 0;
    let high = dates.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (dates[mid]! < date) low = mid + 1;
      else high = mid;
    }
    return low;
  };
  return dates.slice(lowerBound(from), lowerBound(addDays(to, 1)));
}

/**
 * What stands for the revision of the rates held, within this process: the reader's date list (a
 * new array on every change), or the newest date when the reader has none.
 */
export function revisionKey(rates: RatesReader): unknown {
  return rates.publicationDates?.() ?? rates.latest()?.date;
}

/**
 * The registry and the quote spans, computed from the whole history once per rates revision
 * (revisionKey). Concurrent callers share one computation; a failed one is forgotten, so the next retries.
 */
export function historyFacts(rates: RatesReader): HistoryFactsOf {
  let memo: { key: unknown; facts: Promise<HistoryFacts>; done?: HistoryFacts } | undefined;
  const facts = () => {
    const key = revisionKey(rates);
    if (memo && memo.key === key) return memo.facts;
    const computing = (async () => {
      let spans = NO_SPANS;
      const dates = allDates(rates);
      for (let i = 0; i < dates.length; i += SLICE) spans = extendSpans(spans, await rates.loadPublications(dates.slice(i, i + SLICE)));
      return { spans, registry: buildRegistry(spans) };
    })();
    const entry: NonNullable<typeof memo> = { key, facts: computing };
    memo = entry;
    computing.then(
      (done) => (entry.done = done),
      () => {
        if (memo === entry) memo = undefined;
      },
    );
    return computing;
  };
  return Object.assign(facts, { settled: () => (memo && memo.key === revisionKey(rates) ? memo.done : undefined) });
}

/** The history facts of the rates held, computed once per revision; `settled` gives them without waiting, when they are computed already. */
export type HistoryFactsOf = (() => Promise<HistoryFacts>) & { settled(): HistoryFacts | undefined };

/**
 * Computes `facts` in the background each time the rates change, and at once when some are held
 * already, so that no request (the first registry answer, or the first RATE_NOT_FOUND that names a
 * currency's last quote after a publication) folds the whole history on its own path. Only for a
 * reader that announces its changes: without that, the first request after a change computes them.
 * Returns the unsubscribe.
 */
export function precomputeOnRevision(rates: RatesReader, facts: () => Promise<HistoryFacts>): () => void {
  if (!rates.onRevision) return () => undefined;
  // A failure is forgotten by historyFacts; the request that needs the facts retries and answers it.
  const compute = (): void => void facts().catch(() => undefined);
  const unsubscribe = rates.onRevision(compute);
  if (rates.latest()) compute();
  return unsubscribe;
}
