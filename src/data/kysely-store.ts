import { sql, type Transaction } from 'kysely';
import type { AccountStore } from '../services/account-store';
import { accountQueries } from './store-accounts';
import { keyQueries } from './store-keys';
import { oauthQueries } from './store-oauth';
import { sessionQueries } from './store-sessions';
import type { Db, StoreDialect, StoreTables, Trx } from './store-tables';
import { usageQueries } from './store-usage';
import { webhookQueries } from './store-webhooks';

export interface KyselyStoreOptions {
  /** The clock for created/revoked timestamps; tests pass a fixed one. */
  now?: () => Date;
}

/**
 * The AccountStore, written once on Kysely for SQLite and PostgreSQL (store.ts is the contract),
 * one group of queries per concern: accounts, sessions, keys, usage, webhooks.
 * Every read-then-write runs in the dialect's write transaction; single-statement writes rely on
 * the statement's own atomicity (conditional UPDATE … RETURNING, INSERT … ON CONFLICT … WHERE).
 */
export function createKyselyStore(database: Db, dialect: StoreDialect, options: KyselyStoreOptions = {}): AccountStore {
  let closed = false;
  // A query after close() fails loudly (Kysely would otherwise reopen its driver).
  const db = database.withPlugin({
    transformQuery(args) {
      if (closed) throw new Error('The account store is closed.');
      return args.node;
    },
    transformResult: async (args) => args.result,
  });
  const now = () => (options.now ?? (() => new Date()))().toISOString();
  const store = { db, dialect, now };
  return {
    ...accountQueries(store),
    ...sessionQueries(store),
    ...keyQueries(store),
    ...usageQueries(store),
    webhooks: webhookQueries(store),
    oauth: oauthQueries(store),
    async close() {
      if (closed) return;
      closed = true;
      await dialect.close();
    },
  };
}

/** BEGIN IMMEDIATE on Kysely's one SQLite connection (its mutex keeps every other query out meanwhile). */
export async function sqliteImmediateTransaction<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T> {
  return db.connection().execute(async (connection) => {
    await sql`BEGIN IMMEDIATE`.execute(connection);
    try {
      const result = await work(connection);
      await sql`COMMIT`.execute(connection);
      return result;
    } catch (error) {
      await sql`ROLLBACK`.execute(connection).catch(() => undefined);
      throw error;
    }
  });
}

/** A PostgreSQL transaction (READ COMMITTED; the reads that decide take FOR UPDATE locks). */
export function postgresTransaction<T>(db: Db, work: (trx: Transaction<StoreTables>) => Promise<T>): Promise<T> {
  return db.transaction().execute(work);
}
