import { API_VERSION } from '../version';
import type { RatesReader } from './rates';

export interface HealthReport {
  status: 'ok' | 'degraded';
  version: string;
  rates: { date: string | null; fetchedAt: string | null; stale: boolean; lastError: string | null };
}

/** `ok` when current rates are held; `degraded` when they are missing or stale (units still work). */
export function healthReport(rates: RatesReader): HealthReport {
  const status = rates.status();
  return { status: status.date !== null && !status.stale ? 'ok' : 'degraded', version: API_VERSION, rates: status };
}
