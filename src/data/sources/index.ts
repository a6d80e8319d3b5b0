import type pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../../config';
import { parseFeed } from '../../domain/sources/parsers';
import type { ParsedFeed } from '../../domain/sources/types';
import type { FeedSourceId, SourceRatesService } from '../../services/currency/source-rates';
import { egressFetch } from '../egress-fetch';
import { openSourceStore } from './open-source-store';
import type { SourceStore } from './source-store';
import { SourcesService } from './sources-service';
import { DEFAULT_SOURCES_TUNING, type SourcesTuning } from './tuning';

export { SourceFileError } from './errors';
export { openPostgresSourceStore, openSourceStore, openSqliteSourceStore } from './open-source-store';
export { SourceStore } from './source-store';
export { DEFAULT_SOURCES_TUNING, type SourcesTuning } from './tuning';

export interface SourcesServiceDeps {
  config: Config;
  logger: Logger;
  /** The clock for "today", the schedules and staleness; the system clock by default. */
  clock?: () => Date;
  /** The HTTP client for the publishers; by default fetch through the configuration's proxy, if any (egress-fetch.ts). */
  fetch?: typeof fetch;
  /** Shorter timeouts and periods (tests). */
  tuning?: Partial<SourcesTuning>;
  /** Another store than the configuration's (tests). */
  store?: SourceStore;
  /** On PostgreSQL: the account store's pool, to share; otherwise the store opens its own. */
  pool?: pg.Pool;
  /** Jitter source in [0, 1); Math.random by default. */
  random?: () => number;
  /** The feed parsers; parseFeed by default (tests read made-up bodies). */
  parse?: (source: FeedSourceId, body: Uint8Array) => ParsedFeed;
}

/**
 * Builds the service of the sources besides the ECB on the configuration's rates database
 * (SQLite `DATA_DIR/rates.db` or PostgreSQL). Nothing is read or fetched until start();
 * importFile() also works without it (the admin CLI), and stop() closes the store.
 */
export function createSourceRatesService(deps: SourcesServiceDeps): SourceRatesService {
  const logger = deps.logger.child({ component: 'sources' });
  return new SourcesService({
    store: deps.store ?? openSourceStore(deps.config, { pool: deps.pool, logger }),
    enabled: deps.config.sources.enabled,
    baseUrls: deps.config.sources.baseUrls,
    parse: deps.parse ?? parseFeed,
    fetch: deps.fetch ?? egressFetch(deps.config.egressProxy),
    clock: deps.clock ?? (() => new Date()),
    random: deps.random ?? Math.random,
    tuning: { ...DEFAULT_SOURCES_TUNING, ...deps.tuning },
    logger,
  });
}
