import { sourceInfo } from '../../domain/sources/catalog';
import type { SourceHistory } from '../../domain/sources/history';
import { isOverdue } from '../../domain/sources/schedule';
import type { FeedSourceId, SourceStatus } from '../../services/currency/source-rates';
import { nextDue } from './fetch-plan';
import type { StoredSourceStatus } from './source-store';

/**
 * What health says of a source at `now`: stale when any of its tables is overdue by its schedule
 * (or holds nothing), or when the publisher's last response no longer parsed (what is held is
 * then served on, but nothing new can arrive until the loader reads the new shape).
 */
export function sourceStatus(source: FeedSourceId, history: SourceHistory, stored: StoredSourceStatus, now: Date): SourceStatus {
  const overdue = sourceInfo(source).tables.some((t) => isOverdue(t.schedule, history.latestOfTable(source, t.id), now));
  return {
    source,
    lastPublication: history.latest(source) ?? null,
    fetchedAt: stored.fetchedAt,
    expectedNext: nextDue(source, history)?.toISOString() ?? null,
    stale: overdue || stored.lastError?.unparsable === true,
    lastError: stored.lastError?.message ?? null,
  };
}
