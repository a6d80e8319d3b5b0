import type { Logger } from 'pino';
import type { Config } from '../config';
import { mapDatabaseFaults, redactDatabaseUrl } from './database-errors';
import { migrate, SQLITE_MIGRATIONS } from './migrations';
import { DATABASE_DEADLINE_MS } from './pg-client';
import { migratePostgres } from './postgres-migrations';
import { createPostgresPool, openPostgresStore } from './postgres-store';
import { openSharedSqlite } from './sqlite-file';
import { openSqliteStore } from './sqlite-store';
import type { AccountStore } from '../services/account-store';

/**
 * The account store the configuration names (DATABASE_URL / DATA_DIR, contract sections 1 and 10).
 * SQLite migrates on open; PostgreSQL connects lazily, so run migrateDatabase first (main.ts and
 * the CLI do). Database faults while serving become 503 SERVICE_UNAVAILABLE (database-errors.ts).
 */
export function openStore(config: Config, options: { logger?: Pick<Logger, 'warn' | 'info'> } = {}): AccountStore {
  // One warning when the database stops answering, one line when it is back: not one per request.
  const onChange = (reachable: boolean, error?: unknown) =>
    reachable
      ? options.logger?.info({ database: config.database.kind }, 'account database reachable again')
      : options.logger?.warn(
          { database: config.database.kind, err: error },
          'account database unreachable: keyed routes answer 503 until it is back',
        );
  switch (config.database.kind) {
    case 'sqlite':
      return mapDatabaseFaults(openSqliteStore(config.database.file), 'sqlite', { onChange });
    case 'postgres':
      return mapDatabaseFaults(openPostgresStore(config.database.url), 'postgres', { onChange, deadlineMs: DATABASE_DEADLINE_MS });
  }
}

export interface DatabaseMigration {
  database: 'sqlite' | 'postgres';
  /** The versions applied now; empty when the schema was up to date. */
  applied: number[];
  version: number;
}

/** A database that cannot be used at start: the message is one line, names DATABASE_URL and never shows a password. */
export class DatabaseStartError extends Error {
  override name = 'DatabaseStartError';
}

/**
 * Connects and brings the schema up to date (`admin db migrate`, and every start before listening).
 * Several processes may run it at once: SQLite under BEGIN IMMEDIATE, PostgreSQL under an advisory
 * lock. A database that cannot be reached, refuses the credentials or does not exist is a
 * DatabaseStartError.
 */
export async function migrateDatabase(config: Config): Promise<DatabaseMigration> {
  if (config.database.kind === 'sqlite') {
    let before = 0;
    const db = openSharedSqlite(config.database.file, (handle) => {
      before = handle.pragma('user_version', { simple: true }) as number;
      migrate(handle);
    });
    db.close();
    const applied = Array.from({ length: Math.max(0, SQLITE_MIGRATIONS.length - before) }, (_, i) => before + i + 1);
    return { database: 'sqlite', applied, version: SQLITE_MIGRATIONS.length };
  }
  const url = config.database.url;
  const pool = createPostgresPool(url, { max: 1, queryDeadlineMs: 0, connectTimeoutMs: 5_000 });
  try {
    const report = await migratePostgres(pool);
    return { database: 'postgres', ...report };
  } catch (error) {
    throw new DatabaseStartError(`Invalid configuration: DATABASE_URL ${describeStartFailure(error)} (${redactDatabaseUrl(url)})`);
  } finally {
    await pool.end().catch(() => undefined);
  }
}

function describeStartFailure(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message =
    error instanceof Error
      ? error.message || (error instanceof AggregateError ? String(error.errors[0]?.message ?? '') : '')
      : String(error);
  const oneLine = message.replace(/\s+/g, ' ').trim();
  switch (code) {
    case '28P01':
    case '28000':
      return `refused the credentials: ${oneLine}`;
    case '3D000':
      return `names a database that does not exist: ${oneLine}`;
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
      return `cannot be reached: ${oneLine || String(code)}`;
    default:
      if (/^timeout exceeded when trying to connect|^Connection terminated/.test(oneLine)) return `cannot be reached: ${oneLine}`;
      return `cannot be used: ${oneLine || 'unknown error'}`;
  }
}
