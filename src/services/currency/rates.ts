import type { Publication } from '../../domain/ecb';

/** What health reports about the reference rates. */
export interface RatesStatus {
  /** Newest publication held; null while none has ever been loaded. */
  date: string | null;
  /** When rates were last fetched or imported successfully (ISO 8601). */
  fetchedAt: string | null;
  /** True when a newer publication is overdue, or none is loaded. */
  stale: boolean;
  /** Publications due by the ECB calendar (their 16:00 passed) and not held; null while none is loaded. */
  missingPublications: number | null;
  /** The last fetch error, until a fetch succeeds again. */
  lastError: string | null;
}

/**
 * The read side of the ECB rates that request handling uses. The date index and the newest
 * publication are held in memory; whole publications come from the cache (keyv), many at once.
 */
export interface RatesReader {
  /** The newest publication, or undefined while none has ever been loaded. */
  latest(): Publication | undefined;
  /** The date of the latest publication on or before `date` (YYYY-MM-DD); undefined before the first. */
  resolveDate(date: string): string | undefined;
  /** Whole publications for exact publication dates, in one cache read; undefined where none is stored. */
  loadPublications(dates: readonly string[]): Promise<(Publication | undefined)[]>;
  /** Every code quoted in any stored publication, plus EUR. */
  knownCurrencies(): ReadonlySet<string>;
  /**
   * Every stored publication date, oldest first; a new array whenever the rates change, so its
   * identity can key what is computed from the whole history. Optional: without it the dates are
   * found by walking resolveDate back from the latest.
   */
  publicationDates?(): readonly string[];
  /**
   * A name of the rates held that changes with every write (an import, a refresh, a correction of
   * a past day) and is the same on every instance of one database. Optional: a validator made
   * from it is otherwise made from what this process saw change.
   */
  revision?(): string | undefined;
  /**
   * Calls `listener` each time the held rates change (an import, a refresh, another process's
   * write), once the new ones are served; returns the unsubscribe. Optional: what is computed from
   * the whole history is then computed on the first request after a change instead.
   */
  onRevision?(listener: () => void): () => void;
  status(): RatesStatus;
  /** Seconds a response for the latest publication may be cached: at most 3600, never past the next expected publication. */
  latestMaxAgeSeconds(): number;
}

export interface ImportReport {
  file: string;
  publications: number;
  added: number;
  replaced: number;
  newest: string | null;
}

export type Progress = (message: string) => void;

/** The whole rates component: reader, plus loading, importing and the refresh schedule. */
export interface RatesService extends RatesReader {
  /** Loads what the cache holds (serving at once), imports RATES_FILE if set, starts the refresh schedule. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Imports a local ECB file (XML, CSV or zip) into the cache and memory. */
  importFile(path: string, onProgress?: Progress): Promise<ImportReport>;
  /** Fetches from ECB_BASE_URL now (full history on a cold cache, else 90-day and daily). */
  refresh(onProgress?: Progress): Promise<ImportReport>;
}
