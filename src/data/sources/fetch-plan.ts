import { sourceInfo } from '../../domain/sources/catalog';
import type { SourceHistory } from '../../domain/sources/history';
import { nextPublicationDue } from '../../domain/sources/schedule';
import type { FeedSourceId } from '../../services/currency/source-rates';
import type { SourcesTuning } from './tuning';

/** When the next publication of any table of `source` is due; undefined while a table holds none. */
export function nextDue(source: FeedSourceId, history: SourceHistory): Date | undefined {
  let earliest: Date | undefined;
  for (const table of sourceInfo(source).tables) {
    const newest = history.latestOfTable(source, table.id);
    if (newest === undefined) return undefined;
    const due = nextPublicationDue(table.schedule, newest);
    if (earliest === undefined || due < earliest) earliest = due;
  }
  return earliest;
}

/**
 * How long a source waits before its next fetch: until its next publication is due (plus up to a
 * minute of jitter, so instances do not ask together); every `pollMs` while one is due and not
 * held, or after a failure; never more than `maxWaitMs`.
 */
export function nextFetchDelayMs(
  source: FeedSourceId,
  history: SourceHistory,
  now: Date,
  random: () => number,
  tuning: Pick<SourcesTuning, 'pollMs' | 'maxWaitMs'>,
  failed: boolean,
): number {
  const due = nextDue(source, history);
  const poll = tuning.pollMs * (0.75 + random() / 2);
  if (failed || due === undefined || due <= now) return Math.min(poll, tuning.maxWaitMs);
  return Math.min(due.getTime() - now.getTime() + random() * 60_000, tuning.maxWaitMs);
}
