import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { createKyselyStore, postgresTransaction, type KyselyStoreOptions, type StoreTables } from './kysely-store';
import type { AccountStore } from '../services/account-store';

export interface PostgresPoolOptions {
  /** Connections of this process (default 10). */
  max?: number;
  /** Waiting for a connection longer than this fails (default 5 s): unreachable means 503 soon, not a hung request. */
  connectTimeoutMs?: number;
}

/**
 * A pool with bounded waits: a connect timeout of a few seconds, a server-side statement_timeout
 * (10 s) and `application_name` so an operator sees who is connected (pg_stat_activity). An idle
 * connection that breaks (the server restarted) is dropped and replaced on the next query: the
 * pool's 'error' event is handled so it never crashes the process.
 */
export function createPostgresPool(url: string, options: PostgresPoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    idleTimeoutMillis: 30_000,
    statement_timeout: 10_000,
    query_timeout: 15_000,
    application_name: 'measurement-api',
    keepAlive: true,
  });
  pool.on('error', () => {
    // An idle client lost its connection; the pool has removed it. Queries report faults themselves.
  });
  return pool;
}

/** AccountStore on PostgreSQL: the Kysely store of kysely-store.ts on a pg Pool (migrations: postgres-migrations.ts). */
export function openPostgresStore(url: string, options: KyselyStoreOptions & PostgresPoolOptions = {}): AccountStore {
  const pool = createPostgresPool(url, options);
  const db = new Kysely<StoreTables>({ dialect: new PostgresDialect({ pool }) });
  return createKyselyStore(
    db,
    {
      name: 'postgres',
      forUpdate: true,
      keyOrder: 'seq',
      writeTransaction: postgresTransaction,
      isUniqueViolation: (error) => (error as { code?: unknown } | null)?.code === '23505',
      isForeignKeyViolation: (error) => (error as { code?: unknown } | null)?.code === '23503',
      close: () => db.destroy(),
    },
    options,
  );
}
