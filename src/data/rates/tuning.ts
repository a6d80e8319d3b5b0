import { DEFAULT_SCHEDULE, type ScheduleOptions } from '../../domain/calendar/ecb-schedule';

/** Timeouts, retries and periods of the rates service; tests shorten them. */
export interface RatesTuning {
  /** Until the ECB's response headers arrive. */
  connectTimeoutMs: number;
  /** Whole exchange for the history zip. */
  historyTimeoutMs: number;
  /** Whole exchange for the daily and 90-day files. */
  fileTimeoutMs: number;
  /** Attempts per file and refresh, the first included. */
  tries: number;
  /** First retry pause; doubles, jittered. */
  retryBaseDelayMs: number;
  /** Refuse a response body larger than this. */
  maxBytes: number;
  /** How often the server checks the cache revision for data the admin CLI imported. */
  syncIntervalMs: number;
  schedule: ScheduleOptions;
}

export const DEFAULT_TUNING: RatesTuning = {
  connectTimeoutMs: 10_000,
  historyTimeoutMs: 60_000,
  fileTimeoutMs: 15_000,
  tries: 3,
  retryBaseDelayMs: 1_000,
  maxBytes: 32 * 1024 * 1024,
  syncIntervalMs: 5_000,
  schedule: DEFAULT_SCHEDULE,
};
