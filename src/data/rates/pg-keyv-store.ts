import { EventEmitter } from 'node:events';
import type { KeyvStoreAdapter } from 'keyv';
import type pg from 'pg';

/**
 * The DDL of the rates history on PostgreSQL: one key/value table, the layout of the SQLite file
 * (`DATA_DIR/rates.db`), so RatesCache reads and writes both the same way. Idempotent. The values
 * are Keyv's JSON text: publications are only ever read whole, by date, never queried inside.
 */
export const RATES_TABLES_SQL = 'CREATE TABLE IF NOT EXISTS rates_keyv (key text PRIMARY KEY, value text NOT NULL)';

/** Any fixed number: the transaction lock that keeps two instances' first start from racing on CREATE. */
const SCHEMA_LOCK = 0x5261_7465; // "Rate"

/** Creates the rates tables if missing; safe to run from several processes at once. */
export async function createRatesTables(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    // CREATE TABLE IF NOT EXISTS is not safe against itself: two at once can fail on pg_type's unique index.
    await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
    await client.query(RATES_TABLES_SQL);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

interface Row {
  key: string;
  value: string;
}

/**
 * A keyv 5 store adapter on a `pg` Pool, the PostgreSQL twin of SqliteKeyvStore: keys arrive
 * prefixed `namespace:` by Keyv, several adapters (one per namespace) share one pool, and the
 * table is created on first use (retried on the next call if the database was unreachable).
 */
export class PgKeyvStore extends EventEmitter implements KeyvStoreAdapter {
  readonly opts = { dialect: 'postgres' };
  namespace?: string;
  private readonly pool: pg.Pool;
  private readonly ready: () => Promise<void>;

  /** `pool` stays owned by the caller; `ready` resolves once the table exists (shared by the namespaces). */
  constructor(pool: pg.Pool, ready: () => Promise<void>) {
    super();
    this.pool = pool;
    this.ready = ready;
  }

  async get<Value>(key: string): Promise<Value | undefined> {
    return (await this.rows('SELECT key, value FROM rates_keyv WHERE key = $1', [key]))[0]?.value as Value | undefined;
  }

  async getMany<Value>(keys: string[]): Promise<(Value | undefined)[]> {
    const found = new Map(
      (await this.rows('SELECT key, value FROM rates_keyv WHERE key = ANY($1::text[])', [keys])).map((row) => [row.key, row.value]),
    );
    return keys.map((key) => found.get(key) as Value | undefined);
  }

  async has(key: string): Promise<boolean> {
    return (await this.get(key)) !== undefined;
  }

  async hasMany(keys: string[]): Promise<boolean[]> {
    return (await this.getMany(keys)).map((value) => value !== undefined);
  }

  async set(key: string, value: unknown): Promise<boolean> {
    await this.setMany([{ key, value }]);
    return true;
  }

  /** One statement for the whole batch (the full history is about 7,000 rows). */
  async setMany(entries: { key: string; value: unknown }[]): Promise<void> {
    if (entries.length === 0) return;
    await this.rows(
      `INSERT INTO rates_keyv (key, value) SELECT * FROM unnest($1::text[], $2::text[])
       ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      [entries.map((e) => e.key), entries.map((e) => String(e.value))],
    );
  }

  async delete(key: string): Promise<boolean> {
    return this.deleteMany([key]);
  }

  async deleteMany(keys: string[]): Promise<boolean> {
    await this.ready();
    return ((await this.pool.query('DELETE FROM rates_keyv WHERE key = ANY($1::text[])', [keys])).rowCount ?? 0) > 0;
  }

  async clear(): Promise<void> {
    // starts_with, not a `>= 'ns:' AND < 'ns;'` range: most collations ignore punctuation when sorting.
    if (this.namespace === undefined) await this.rows('DELETE FROM rates_keyv', []);
    else await this.rows('DELETE FROM rates_keyv WHERE starts_with(key, $1)', [`${this.namespace}:`]);
  }

  async disconnect(): Promise<void> {}

  private async rows(sql: string, params: unknown[]): Promise<Row[]> {
    await this.ready();
    return (await this.pool.query<Row>(sql, params)).rows;
  }
}

/** `createRatesTables` once per pool, retried by the next caller when it failed (database down at start). */
export function tablesOnce(pool: pg.Pool): () => Promise<void> {
  let created: Promise<void> | undefined;
  return () =>
    (created ??= createRatesTables(pool).catch((error: unknown) => {
      created = undefined;
      throw error;
    }));
}
