import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { migratePostgres } from '../../src/data/postgres-migrations';
import { createPostgresPool, openPostgresStore } from '../../src/data/postgres-store';
import { openSqliteStore } from '../../src/data/sqlite-store';
import type { AccountStore } from '../../src/services/account-store';
import { freshDatabase, postgresTitle, TEST_DATABASE_URL, type FreshDatabase } from '../helpers/postgres';

/**
 * The store suites run once per database: a SQLite file in a temporary directory, and a PostgreSQL
 * database of the suite's own (freshDatabase; skipped with a message when TEST_DATABASE_URL is
 * unset). `reset` empties the database between tests, `query` runs raw SQL written with `?`
 * placeholders on a connection of its own (what another process would see).
 */
export interface BackendInstance {
  /** `sqlite:<file>` or the postgres:// URL: what a worker process needs to open the same database. */
  location: string;
  open(options?: { now?: () => Date }): AccountStore;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  reset(): Promise<void>;
  destroy(): Promise<void>;
}

export interface Backend {
  name: 'sqlite' | 'postgres';
  available: boolean;
  /** A describe title that says why the suite skipped, when it did. */
  title(title: string): string;
  create(): Promise<BackendInstance>;
}

/** Opens the store a worker process is given (`sqlite:<file>` or a postgres:// URL). */
export function openStoreAt(location: string, options: { now?: () => Date } = {}): AccountStore {
  return location.startsWith('sqlite:') ? openSqliteStore(location.slice('sqlite:'.length), options) : openPostgresStore(location, options);
}

const sqlite: Backend = {
  name: 'sqlite',
  available: true,
  title: (title) => `${title} (SQLite)`,
  async create() {
    let dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-'));
    let file = path.join(dir, 'nested', 'measurement.db');
    const instance: BackendInstance = {
      get location() {
        return `sqlite:${file}`;
      },
      open: (options) => openSqliteStore(file, options),
      async query<T>(sql: string, params: unknown[] = []) {
        const raw = new BetterSqlite3(file);
        try {
          const statement = raw.prepare(sql);
          return (statement.reader ? statement.all(...params) : (statement.run(...params), [])) as T[];
        } finally {
          raw.close();
        }
      },
      async reset() {
        fs.rmSync(dir, { recursive: true, force: true });
        dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-'));
        file = path.join(dir, 'nested', 'measurement.db');
      },
      async destroy() {
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
    return instance;
  },
};

const postgres: Backend = {
  name: 'postgres',
  available: TEST_DATABASE_URL !== undefined,
  title: (title) => postgresTitle(`${title} (PostgreSQL)`),
  async create() {
    const database: FreshDatabase = await freshDatabase();
    const pool = createPostgresPool(database.url, { max: 2 });
    await migratePostgres(pool);
    const instance: BackendInstance = {
      location: database.url,
      open: (options) => openPostgresStore(database.url, options),
      async query<T>(sql: string, params: unknown[] = []) {
        let n = 0;
        const result = await pool.query(
          sql.replace(/\?/g, () => `$${++n}`),
          params,
        );
        return result.rows as T[];
      },
      async reset() {
        await pool.query(
          'TRUNCATE oauth_records, webhook_deliveries, webhook_events, webhook_endpoints, usage_days, usage, sessions, api_keys, accounts',
        );
      },
      async destroy() {
        await pool.end();
        await database.drop();
      },
    };
    return instance;
  },
};

export const BACKENDS: readonly Backend[] = [sqlite, postgres];
