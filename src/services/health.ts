import type { DatabaseHealth } from '../data/store';
import { API_VERSION } from '../version';
import type { RatesReader } from './rates';

export interface HealthReport {
  status: 'ok' | 'degraded';
  version: string;
  rates: { date: string | null; fetchedAt: string | null; stale: boolean; lastError: string | null };
  /** The account database (keys, quota, sessions); absent when the store does not report it. */
  database?: DatabaseHealth;
}

/**
 * `ok` when current rates are held and the account database answers; `degraded` when rates are
 * missing or stale (units still work) or the database is unreachable (keyed routes answer 503).
 */
export function healthReport(rates: RatesReader, database?: () => DatabaseHealth | undefined): HealthReport {
  const status = rates.status();
  const db = database?.();
  const ok = status.date !== null && !status.stale && db?.reachable !== false;
  return { status: ok ? 'ok' : 'degraded', version: API_VERSION, rates: status, ...(db ? { database: db } : {}) };
}
