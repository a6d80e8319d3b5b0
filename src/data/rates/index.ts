import type { Logger } from 'pino';
import type pg from 'pg';
import type { Config } from '../../config';
import type { RedisWatch } from '../../redis-outage';
import type { RatesService } from '../../services/currency/rates';
import type { RatesCache } from './cache';
import { egressFetch } from '../egress-fetch';
import { EcbClient } from './ecb-client';
import { openRatesCache } from './open-cache';
import { EcbRatesService } from './rates-service';
import { DEFAULT_TUNING, type RatesTuning } from './tuning';

export { EcbFetchError } from './http-get';
export { openPostgresCache, openRatesCache, openSqliteCache, ratesCacheFile } from './open-cache';
export { createRatesTables, RATES_TABLES_SQL } from './pg-keyv-store';
export { RatesCache } from './cache';
export { RedisFront } from './redis-front';
export { RatesFileError, RatesSourceError } from './update';
export { DEFAULT_TUNING, type RatesTuning } from './tuning';

export interface RatesServiceDeps {
  config: Config;
  logger: Logger;
  /** The clock for "today", the schedule and staleness; the system clock by default. */
  clock?: () => Date;
  /** The HTTP client for the ECB; by default fetch through the configuration's proxy, if any (egress-fetch.ts). */
  fetch?: typeof fetch;
  /** Shorter timeouts and periods (tests). */
  tuning?: Partial<RatesTuning>;
  /** Another cache than the configuration's (tests count its reads). */
  cache?: RatesCache;
  /** On PostgreSQL: the account store's pool, to share; otherwise the rates open their own. */
  pool?: pg.Pool;
  /** Told of Redis outages, once each (see redisOutageLog). */
  redisWatch?: RedisWatch;
  /** Jitter source in [0, 1); Math.random by default. */
  random?: () => number;
  /** Told of every refresh that failed after its retries (metrics). */
  onFetchFailure?: () => void;
}

/**
 * Builds the ECB rates service (opening the history: SQLite file `DATA_DIR/rates.db`, or tables
 * in the PostgreSQL database of DATABASE_URL; Redis in front when REDIS_URL is set). Nothing is read or fetched until start(); importFile() and refresh() also
 * work without start() (the admin CLI), and stop() closes the cache.
 */
export function createRatesService(deps: RatesServiceDeps): RatesService {
  const tuning = { ...DEFAULT_TUNING, ...deps.tuning };
  const random = deps.random ?? Math.random;
  const abort = new AbortController();
  const client = new EcbClient({
    ...tuning,
    baseUrl: deps.config.ecbBaseUrl,
    fetch: deps.fetch ?? egressFetch(deps.config.egressProxy),
    random,
    signal: abort.signal,
  });
  return new EcbRatesService({
    cache:
      deps.cache ??
      openRatesCache(deps.config, { logger: deps.logger.child({ component: 'rates' }), pool: deps.pool, redisWatch: deps.redisWatch }),
    client,
    logger: deps.logger.child({ component: 'rates' }),
    clock: deps.clock ?? (() => new Date()),
    random,
    tuning,
    ratesFile: deps.config.ratesFile,
    abort,
    onFetchFailure: deps.onFetchFailure,
  });
}
