import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';

/**
 * Opens (creating) a SQLite file that the server and the admin CLI use at the same time: WAL lets
 * readers run during a write, busy_timeout makes a writer wait for the other instead of failing
 * with SQLITE_BUSY. `prepare` runs once on the new handle; the handle is closed if it throws.
 */
export function openSharedSqlite(file: string, prepare: (db: Database) => void): Database {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new BetterSqlite3(file);
  try {
    db.pragma('busy_timeout = 5000');
    db.pragma('journal_mode = WAL');
    prepare(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}
