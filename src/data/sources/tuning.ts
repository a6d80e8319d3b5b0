/** Timeouts, retries and periods of the sources' fetching; tests shorten them. */
export interface SourcesTuning {
  /** Until a publisher's response headers arrive. */
  connectTimeoutMs: number;
  /** For one whole response, body included. */
  totalTimeoutMs: number;
  /** Attempts per URL and fetch, the first included. */
  tries: number;
  /** First retry pause; doubles, jittered. */
  retryBaseDelayMs: number;
  /** Refuse a response body larger than this. */
  maxBytes: number;
  /** While a publication is due and not held (or the last fetch failed): how often to fetch again. */
  pollMs: number;
  /** Never longer than this between two fetches of a source, whatever its schedule says (a holiday, a late publisher). */
  maxWaitMs: number;
  /** How often the database is checked for what another process wrote. */
  syncIntervalMs: number;
  /** How long one instance's fetch of a source keeps the others from fetching it (longer than a fetch with its retries). */
  leaseMs: number;
}

export const DEFAULT_SOURCES_TUNING: SourcesTuning = {
  connectTimeoutMs: 10_000,
  totalTimeoutMs: 30_000,
  tries: 3,
  retryBaseDelayMs: 1_000,
  maxBytes: 16 * 1024 * 1024,
  pollMs: 15 * 60_000,
  maxWaitMs: 6 * 3_600_000,
  syncIntervalMs: 5_000,
  leaseMs: 5 * 60_000,
};
