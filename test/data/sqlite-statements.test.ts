import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { describe, expect, it } from 'vitest';
import { preparedOnce } from '../../src/data/sqlite-statements';

/** Kysely's SQLite driver prepares on every execution: through preparedOnce, each statement text is compiled once. */
describe('SQLite statements prepared once', () => {
  it('the same query run again reuses its statement; past the bound the least recently used is dropped', async () => {
    const handle = new BetterSqlite3(':memory:');
    handle.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
    const texts: string[] = [];
    const prepare = handle.prepare.bind(handle);
    handle.prepare = ((source: string) => {
      texts.push(source);
      return prepare(source);
    }) as typeof handle.prepare;
    const cache = preparedOnce(handle, 2);
    const db = new Kysely<{ t: { id: number; v: string } }>({ dialect: new SqliteDialect({ database: cache }) });
    for (let i = 0; i < 5; i++)
      await db
        .insertInto('t')
        .values({ id: i, v: `v${i}` })
        .execute();
    for (let i = 0; i < 5; i++) expect(await db.selectFrom('t').select('v').where('id', '=', i).executeTakeFirst()).toEqual({ v: `v${i}` });
    expect(texts).toHaveLength(2);
    await db.deleteFrom('t').where('id', '=', 0).execute();
    expect(cache.prepared).toBe(2);
    // The insert was the least recently used: prepared again.
    await db.insertInto('t').values({ id: 9, v: 'v9' }).execute();
    expect(texts).toHaveLength(4);
    await db.destroy();
    expect(handle.open).toBe(false);
  });
});
