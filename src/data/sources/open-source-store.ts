import { Keyv } from 'keyv';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../../config';
import { createPostgresPool } from '../postgres-store';
import { pgLocks } from '../rates/locks';
import { ratesCacheFile } from '../rates/open-cache';
import { PgKeyvStore, tablesOnce } from '../rates/pg-keyv-store';
import { pgRevisionChannel } from '../rates/revision-channel';
import { openKeyvDatabase, SqliteKeyvStore } from '../rates/sqlite-keyv-store';
import { SourceStore } from './source-store';

export interface OpenSourceStoreOptions {
  /** The keyv namespace (tests use a unique one per run). */
  namespace?: string;
  /** On PostgreSQL: a pool to share (left open by close()); otherwise one of its own from DATABASE_URL. */
  pool?: pg.Pool;
  logger?: Logger;
}

/**
 * The sources' store where the ECB rates live: the SQLite file `DATA_DIR/rates.db`, or the
 * `rates_keyv` table of the PostgreSQL database of DATABASE_URL (same key/value layout, created on
 * first use), under its own namespace. No migration: the table is the ECB cache's.
 */
export function openSourceStore(config: Config, { namespace = 'sources', pool, logger }: OpenSourceStoreOptions = {}): SourceStore {
  if (config.database.kind === 'postgres') return openPostgresSourceStore(pool ?? config.database.url, namespace, logger);
  return openSqliteSourceStore(ratesCacheFile(config), namespace);
}

export function openSqliteSourceStore(file: string, namespace = 'sources'): SourceStore {
  const db = openKeyvDatabase(file);
  const keyv = new Keyv({ store: new SqliteKeyvStore(db), namespace, throwOnErrors: true });
  return new SourceStore(keyv, async () => {
    if (db.open) db.close();
  });
}

/** `pool` shared (left open by close()) or a URL (a pool of its own, ended by close()). */
export function openPostgresSourceStore(pool: pg.Pool | string, namespace = 'sources', logger?: Logger): SourceStore {
  const owned = typeof pool === 'string' ? createPostgresPool(pool, { max: 4 }) : undefined;
  const shared = owned ?? (pool as pg.Pool);
  // An idle client's error (the server restarted) is emitted on the pool: unhandled, it would end the process.
  owned?.on('error', (error) => logger?.debug({ err: error }, 'sources database connection lost'));
  const keyv = new Keyv({ store: new PgKeyvStore(shared, tablesOnce(shared)), namespace, throwOnErrors: true });
  return new SourceStore(keyv, async () => void (await owned?.end()), { locks: pgLocks(shared), channel: pgRevisionChannel(shared) });
}
