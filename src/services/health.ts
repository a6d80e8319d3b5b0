import { API_VERSION } from '../version';
import type { RatesReader } from './rates';

/** Where request rate limits are counted: what health needs of the limiters. */
export interface RateLimitBackend {
  countedIn(): 'redis' | 'memory';
  /** REDIS_URL is set: `memory` then means Redis is down (each instance counts on its own). */
  readonly redisConfigured: boolean;
}

export interface HealthReport {
  status: 'ok' | 'degraded';
  version: string;
  rates: { date: string | null; fetchedAt: string | null; stale: boolean; lastError: string | null };
  /** `redis`: shared by every instance; `memory`: per instance (no REDIS_URL, or Redis down). */
  rateLimits: 'redis' | 'memory';
}

/**
 * `ok` when current rates are held and rate limits are counted where configured; `degraded` when
 * rates are missing or stale or Redis is configured but down (units and conversions still work).
 */
export function healthReport(rates: RatesReader, limits: RateLimitBackend): HealthReport {
  const status = rates.status();
  const rateLimits = limits.countedIn();
  const ratesOk = status.date !== null && !status.stale;
  const limitsOk = !limits.redisConfigured || rateLimits === 'redis';
  return { status: ratesOk && limitsOk ? 'ok' : 'degraded', version: API_VERSION, rates: status, rateLimits };
}
