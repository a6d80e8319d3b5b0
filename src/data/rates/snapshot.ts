import type { Publication } from '../../domain/ecb';
import type { CachedIndex, RatesCache } from './cache';

/**
 * What request handling reads from memory, replaced whole (never mutated) on every change so a
 * request never sees half an update: the sorted dates, the newest publication, the known codes.
 */
export interface RatesSnapshot {
  readonly dates: readonly string[];
  readonly latest: Publication | undefined;
  /** Every code ever quoted, plus EUR. */
  readonly currencies: ReadonlySet<string>;
  /** The cache revision this snapshot reflects. */
  readonly revision: string | undefined;
}

export const EMPTY_SNAPSHOT: RatesSnapshot = Object.freeze({
  dates: [],
  latest: undefined,
  currencies: new Set(['EUR']),
  revision: undefined,
});

/** The latest date on or before `date` (all YYYY-MM-DD, so string order is date order), by binary search. */
export function resolveDate(dates: readonly string[], date: string): string | undefined {
  let low = 0;
  let high = dates.length; // the answer is dates[low - 1] once low === high
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (dates[mid]! <= date) low = mid + 1;
    else high = mid;
  }
  return low === 0 ? undefined : dates[low - 1];
}

/** A snapshot of `index`; `latest` is the stored publication of its newest date (read by the caller). */
export function snapshotOf(index: CachedIndex, latest: Publication | undefined, revision: string | undefined): RatesSnapshot {
  return Object.freeze({
    dates: Object.freeze([...index.dates]),
    latest,
    currencies: new Set(['EUR', ...index.currencies]),
    revision,
  });
}

/** Reads the index and the newest publication: the two cache reads that let a restart serve at once. */
export async function loadSnapshot(cache: RatesCache, revision: string | undefined): Promise<RatesSnapshot> {
  const index = await cache.readIndex();
  const newest = index?.dates.at(-1);
  if (!index || newest === undefined) return { ...EMPTY_SNAPSHOT, revision };
  const [latest] = await cache.readPublications([newest]);
  return snapshotOf(index, latest, revision);
}
