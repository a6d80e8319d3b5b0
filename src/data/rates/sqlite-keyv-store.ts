import { EventEmitter } from 'node:events';
import type { Database } from 'better-sqlite3';
import { openSharedSqlite } from '../sqlite-file';
import type { KeyvStoreAdapter } from 'keyv';

interface Row {
  key: string;
  value: string;
}

/**
 * Opens (creating) the SQLite file that backs the rates cache. The server and the admin CLI open
 * it at the same time: WAL lets the server read while the CLI writes, and busy_timeout makes a
 * writer wait for the other instead of failing with SQLITE_BUSY.
 */
export function openKeyvDatabase(file: string): Database {
  return openSharedSqlite(file, (db) =>
    db.exec('CREATE TABLE IF NOT EXISTS keyv (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID'),
  );
}

/**
 * A keyv 5 store adapter on better-sqlite3, which the project already builds, instead of
 * @keyv/sqlite (it pulls in the `sqlite3` native package: a second from-source build in every
 * `npm ci`). Keys arrive prefixed `namespace:` by Keyv, as with the official adapters, so several
 * adapters (one per namespace) can share one connection; `clear()` only touches its namespace.
 * TTLs are not enforced here: Keyv stores `expires` in the value and checks it on read.
 */
export class SqliteKeyvStore extends EventEmitter implements KeyvStoreAdapter {
  readonly opts = { dialect: 'sqlite' };
  namespace?: string;
  private readonly sql;
  private readonly putMany;

  /** `db` stays owned by the caller: disconnect() does not close it, since namespaces share it. */
  constructor(db: Database) {
    super();
    this.sql = {
      get: db.prepare<[string], Row>('SELECT key, value FROM keyv WHERE key = ?'),
      // One statement for any number of keys: the keys travel as one JSON array parameter.
      getMany: db.prepare<[string], Row>('SELECT key, value FROM keyv WHERE key IN (SELECT value FROM json_each(?))'),
      put: db.prepare<[string, string]>(
        'INSERT INTO keyv (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
      ),
      delete: db.prepare<[string]>('DELETE FROM keyv WHERE key = ?'),
      deleteMany: db.prepare<[string]>('DELETE FROM keyv WHERE key IN (SELECT value FROM json_each(?))'),
      // `;` sorts right after `:`, so this range is exactly the keys starting with `namespace:`.
      clearRange: db.prepare<[string, string]>('DELETE FROM keyv WHERE key >= ? AND key < ?'),
      clearAll: db.prepare('DELETE FROM keyv'),
    };
    // One transaction for a whole batch: 7,000 rows commit in milliseconds instead of 7,000 fsyncs.
    this.putMany = db.transaction((entries: readonly { key: string; value: unknown }[]) => {
      for (const { key, value } of entries) this.sql.put.run(key, String(value));
    });
  }

  async get<Value>(key: string): Promise<Value | undefined> {
    return this.sql.get.get(key)?.value as Value | undefined;
  }

  async getMany<Value>(keys: string[]): Promise<(Value | undefined)[]> {
    const found = new Map(this.sql.getMany.all(JSON.stringify(keys)).map((row) => [row.key, row.value]));
    return keys.map((key) => found.get(key) as Value | undefined);
  }

  async has(key: string): Promise<boolean> {
    return this.sql.get.get(key) !== undefined;
  }

  async hasMany(keys: string[]): Promise<boolean[]> {
    const found = new Set(this.sql.getMany.all(JSON.stringify(keys)).map((row) => row.key));
    return keys.map((key) => found.has(key));
  }

  async set(key: string, value: unknown): Promise<boolean> {
    this.sql.put.run(key, String(value));
    return true;
  }

  async setMany(entries: { key: string; value: unknown }[]): Promise<void> {
    this.putMany(entries);
  }

  async delete(key: string): Promise<boolean> {
    return this.sql.delete.run(key).changes > 0;
  }

  async deleteMany(keys: string[]): Promise<boolean> {
    return this.sql.deleteMany.run(JSON.stringify(keys)).changes > 0;
  }

  async clear(): Promise<void> {
    if (this.namespace === undefined) this.sql.clearAll.run();
    else this.sql.clearRange.run(`${this.namespace}:`, `${this.namespace};`);
  }

  async disconnect(): Promise<void> {}
}
