import type { SourceHistory } from '../../domain/sources/history';
import type { FeedRowIssue, SourceId } from '../../domain/sources/types';
import type { HeldSources } from './held-sources';

/** A source other than the ECB: the ones this service loads, keeps and fetches. */
export type FeedSourceId = Exclude<SourceId, 'ecb'>;

/** What `admin rates import --source` prints of one import. */
export interface SourceImportReport {
  source: FeedSourceId;
  file: string;
  /** Publications the file held. */
  publications: number;
  /** New days (source, table, date) stored. */
  added: number;
  /** Days held with other figures, replaced by the file's (a publisher's correction). */
  replaced: number;
  /** Rows of the file that could not be read, each with its line and reason; the rest was imported. */
  skipped: FeedRowIssue[];
  /** The newest publication day of the source now held. */
  newest: string | null;
}

/** What health reports of one source. */
export interface SourceStatus {
  source: FeedSourceId;
  /** Newest publication day held (of any table); null while none is held. */
  lastPublication: string | null;
  /** When the source was last fetched or imported successfully (ISO 8601). */
  fetchedAt: string | null;
  /** When the next publication is due by the catalogue's schedule (ISO 8601); null while none is held. */
  expectedNext: string | null;
  /** True when a publication is overdue by the schedule, none is held, or the last response no longer parsed. */
  stale: boolean;
  /** The last fetch or parse error, until a fetch succeeds again. */
  lastError: string | null;
}

/** The rates of the sources other than the ECB: persisted, loaded at start, fetched on their schedules. */
export interface SourceRatesService extends HeldSources {
  /** The sources besides the ECB this instance loads, fetches and reports (RATE_SOURCES), in catalogue order. */
  readonly fetched: readonly FeedSourceId[];
  /** The ECB, then `fetched`: every source this instance serves. */
  enabled(): readonly SourceId[];
  /** Loads what the database holds (serving at once), then fetches each enabled source on its own schedule. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Imports a response file of `source` as its publisher sends it; a malformed file writes nothing. */
  importFile(source: FeedSourceId, file: string): Promise<SourceImportReport>;
  /** Fetches one source now (what the schedule runs); rejects with the reason when it failed. */
  refresh(source: FeedSourceId): Promise<void>;
  /** Every publication held, swapped as a whole on each change: a caller keeps one consistent view. */
  history(): SourceHistory;
  status(source: FeedSourceId): SourceStatus;
  /** Calls `listener` after each change of the history; returns the unsubscribe. */
  onChange(listener: () => void): () => void;
}
