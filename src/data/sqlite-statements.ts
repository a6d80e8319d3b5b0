import type { Database, Statement } from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/** Distinct statement texts kept prepared; lists of varying length (IN (…)) make more texts than the store has queries. */
const MAX_STATEMENTS = 256;

/**
 * The handle as Kysely's SQLite dialect sees it, with each statement prepared once: Kysely's driver
 * calls `prepare` on every execution, and better-sqlite3 compiles the SQL anew each time. The
 * statements are kept by their text, the least recently used dropped past `max`. Reusing one is
 * safe: Kysely runs one query at a time on its one connection, each to completion (all or run).
 */
export function preparedOnce(handle: Database, max = MAX_STATEMENTS): SqliteDatabase & { readonly prepared: number } {
  const statements = new Map<string, Statement>();
  return {
    get prepared() {
      return statements.size;
    },
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (statement) {
        statements.delete(sql);
      } else {
        statement = handle.prepare(sql);
        if (statements.size >= max) statements.delete(statements.keys().next().value!);
      }
      statements.set(sql, statement);
      return statement;
    },
    close() {
      statements.clear();
      handle.close();
    },
  };
}
