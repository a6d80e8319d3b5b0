import type { DatabaseHealth } from './account-store';
import { API_VERSION } from '../version';
import type { RatesReader, RatesStatus } from './currency/rates';
import type { HeldSources } from './currency/held-sources';
import type { FeedSourceId, SourceStatus } from './currency/source-rates';

/** What health reads of the sources besides the ECB: the ones fetched and their freshness. */
export interface SourcesReader {
  readonly fetched: readonly FeedSourceId[];
  status(source: FeedSourceId): SourceStatus;
}

/** The freshness side of the held sources, when they have one (the service does; a fixed history in tests does not). */
export function sourcesReaderOf(held: HeldSources): SourcesReader | undefined {
  const candidate = held as Partial<SourcesReader>;
  return Array.isArray(candidate.fetched) && typeof candidate.status === 'function' ? (candidate as SourcesReader) : undefined;
}

/** Where request rate limits are counted: what health needs of the limiters. */
export interface RateLimitBackend {
  countedIn(): 'redis' | 'memory';
  /** REDIS_URL is set: `memory` then means Redis is down (each instance counts on its own). */
  readonly redisConfigured: boolean;
}

export interface HealthReport {
  status: 'ok' | 'degraded';
  version: string;
  rates: RatesStatus;
  /** Each enabled source besides the ECB (RATE_SOURCES), in the catalogue's order; they do not change `status`, the ECB's rates do. */
  sources: SourceStatus[];
  /** `redis`: shared by every instance; `memory`: per instance (no REDIS_URL, or Redis down). */
  rateLimits: 'redis' | 'memory';
  /** The account database (keys, quota, sessions); absent when the store does not report it. */
  database?: DatabaseHealth;
}

/**
 * `ok` when current rates are held, rate limits are counted where configured and the account
 * database answers; `degraded` when rates are missing or stale, Redis is configured but down (units
 * and conversions still work), or the database is unreachable (keyed routes answer 503).
 */
export function healthReport(
  rates: RatesReader,
  limits: RateLimitBackend,
  database?: () => DatabaseHealth | undefined,
  sources?: SourcesReader,
): HealthReport {
  const status = rates.status();
  const rateLimits = limits.countedIn();
  const db = database?.();
  const ratesOk = status.date !== null && !status.stale;
  const limitsOk = !limits.redisConfigured || rateLimits === 'redis';
  const ok = ratesOk && limitsOk && db?.reachable !== false;
  const sourceStatuses = sources?.fetched.map((source) => sources.status(source)) ?? [];
  return {
    status: ok ? 'ok' : 'degraded',
    version: API_VERSION,
    rates: status,
    sources: sourceStatuses,
    rateLimits,
    ...(db ? { database: db } : {}),
  };
}
