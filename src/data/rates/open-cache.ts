import path from 'node:path';
import { Keyv } from 'keyv';
import pg from 'pg';
import pino, { type Logger } from 'pino';
import type { Config } from '../../config';
import type { RedisWatch } from '../../redis-outage';
import { createPostgresPool } from '../postgres-store';
import { RatesCache } from './cache';
import { pgLocks } from './locks';
import { PgKeyvStore, tablesOnce } from './pg-keyv-store';
import { RedisFront } from './redis-front';
import { pgRevisionChannel } from './revision-channel';
import { openKeyvDatabase, SqliteKeyvStore } from './sqlite-keyv-store';

export interface OpenRatesCacheOptions {
  /** Key prefix of the two namespaces (`<prefix>` and `<prefix>-meta`) and of the Redis keys; tests use a unique one per run. */
  prefix?: string;
  /** Where a lost database connection is logged. */
  logger?: Logger;
  /** Told of Redis outages (once each). */
  redisWatch?: RedisWatch | undefined;
  /** On PostgreSQL: the account store's pool, shared; otherwise one of its own from DATABASE_URL. */
  pool?: pg.Pool;
}

/** The SQLite file of the rates history; separate from the account database, as it always was. */
export function ratesCacheFile(config: Config): string {
  return path.join(config.dataDir, 'rates.db');
}

/**
 * The rates history the configuration names: PostgreSQL tables when DATABASE_URL is postgres://,
 * else the SQLite file `DATA_DIR/rates.db`; with REDIS_URL, Redis caches publications in front.
 */
export function openRatesCache(
  config: Config,
  { prefix = 'rates', logger = pino({ level: 'silent' }), pool, redisWatch }: OpenRatesCacheOptions = {},
): RatesCache {
  const front = config.redisUrl === undefined ? undefined : new RedisFront({ url: config.redisUrl, prefix, watch: redisWatch });
  if (config.database.kind === 'postgres') return openPostgresCache(pool ?? config.database.url, prefix, front, logger);
  return openSqliteCache(ratesCacheFile(config), prefix, front);
}

export function openSqliteCache(file: string, prefix = 'rates', front?: RedisFront): RatesCache {
  const db = openKeyvDatabase(file);
  // One adapter object per namespace (Keyv writes its namespace onto the adapter), one shared connection.
  const keyv = (namespace: string) => new Keyv({ store: new SqliteKeyvStore(db), namespace, throwOnErrors: true });
  return new RatesCache(
    keyv(prefix),
    keyv(`${prefix}-meta`),
    async () => {
      if (db.open) db.close();
    },
    { front },
  );
}

/** `pool` shared (left open by close()) or a URL (a pool of its own, ended by close()). */
export function openPostgresCache(pool: pg.Pool | string, prefix = 'rates', front?: RedisFront, logger?: Logger): RatesCache {
  // The store's pool settings (connect and statement timeouts, keep-alive, application_name).
  const owned = typeof pool === 'string' ? createPostgresPool(pool, { max: 6 }) : undefined;
  const shared = owned ?? (pool as pg.Pool);
  // An idle client's error (the server restarted) is emitted on the pool: unhandled, it would end the process.
  // The outage itself is logged once by the rates service's revision check, not once per connection.
  owned?.on('error', (error) => logger?.debug({ err: error }, 'rates database connection lost'));
  const ready = tablesOnce(shared);
  const keyv = (namespace: string) => new Keyv({ store: new PgKeyvStore(shared, ready), namespace, throwOnErrors: true });
  return new RatesCache(keyv(prefix), keyv(`${prefix}-meta`), async () => void (await owned?.end()), {
    front,
    locks: pgLocks(shared),
    channel: pgRevisionChannel(shared),
  });
}
