import type { Publication } from './types';
import { counted } from '../counted';

export interface UpdateCheckOptions {
  /** The file holds only the newest days (daily or 90-day feed), so it must not end before the stored data does. */
  readonly daily: boolean;
}

/** What the checks read of the rates held (a RateTable). */
export interface StoredRates {
  readonly latest: Publication | undefined;
}

/** At most this many per-day problems are listed; one bad feed should give a readable log line. */
const MAX_LISTED = 5;

/**
 * Sanity checks before a parsed feed replaces or extends the stored rates. Returns the problems
 * found (empty = safe to merge). A parser only checks that a file is well formed; these catch a
 * well-formed file that is still wrong: empty, a mostly empty day, stale, or with repeated days.
 */
export function validateUpdate(current: StoredRates, incoming: readonly Publication[], opts: UpdateCheckOptions): string[] {
  if (incoming.length === 0) return ['the file holds no publications'];
  const problems: string[] = [];

  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const pub of incoming) (seen.has(pub.date) ? repeated : seen).add(pub.date);
  if (repeated.size > 0) problems.push(`duplicate dates: ${[...repeated].sort().join(', ')}`);

  const latest = current.latest;
  if (!latest) return problems;

  const reference = Object.keys(latest.rates).length;
  const thin = incoming.filter((pub) => Object.keys(pub.rates).length * 2 < reference);
  for (const pub of thin.slice(0, MAX_LISTED)) {
    const count = Object.keys(pub.rates).length;
    problems.push(
      `${pub.date} quotes ${counted(count, 'currency', 'currencies')}, fewer than half the ${reference} of the latest stored day (${latest.date})`,
    );
  }
  if (thin.length > MAX_LISTED) problems.push(`… and ${thin.length - MAX_LISTED} more days with too few currencies`);

  const newest = incoming.reduce((max, pub) => (pub.date > max ? pub.date : max), incoming[0]!.date);
  if (opts.daily && newest < latest.date) {
    problems.push(`the newest incoming day ${newest} is older than the newest stored day ${latest.date}`);
  }
  return problems;
}
