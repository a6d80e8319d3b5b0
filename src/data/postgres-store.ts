import { randomUUID } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { ApiError } from '../domain/errors';
import { isQuotaMonth, isUsageDay } from '../domain/quota';
import { createKyselyStore, postgresTransaction, type KyselyStoreOptions } from './kysely-store';
import type { StoreTables } from './store-tables';
import { DATABASE_DEADLINE_MS, resilientClient } from './pg-client';
import { quotaLedger } from './quota-ledger';
import { postgresWakeups } from './outbox-wakeups';
import type { AccountStore } from '../services/account-store';

export interface PostgresPoolOptions {
  /** Connections of this process (default 10). */
  max?: number;
  /** Waiting for a connection longer than this fails (default 4 s): unreachable means 503 soon, not a hung request. */
  connectTimeoutMs?: number;
  /**
   * A query still unanswered after this long destroys its connection (default DATABASE_DEADLINE_MS;
   * 0: none, for migrations). See pg-client.ts.
   */
  queryDeadlineMs?: number;
}

/**
 * A pool with bounded waits: a connect timeout of a few seconds, a client-side deadline on every
 * query (pg-client.ts), a server-side statement_timeout (10 s) and `application_name` so an
 * operator sees who is connected (pg_stat_activity). A connection that breaks, idle or checked out
 * (the server restarted, an administrator terminated it), is dropped and replaced on the next
 * query: every client and the pool listen for 'error', so a fault never crashes the process.
 */
export function createPostgresPool(url: string, options: PostgresPoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? DATABASE_DEADLINE_MS,
    idleTimeoutMillis: 30_000,
    statement_timeout: 10_000,
    Client: resilientClient(options.queryDeadlineMs ?? DATABASE_DEADLINE_MS),
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
  const outbox = postgresWakeups(pool);
  const store = createKyselyStore(
    db,
    {
      name: 'postgres',
      forUpdate: true,
      keyOrder: 'seq',
      writeTransaction: postgresTransaction,
      isUniqueViolation: (error) => (error as { code?: unknown } | null)?.code === '23505',
      isForeignKeyViolation: (error) => (error as { code?: unknown } | null)?.code === '23503',
      outbox,
      close: () => {
        // The listening connection first: the pool ends once every connection is back.
        outbox.close();
        return db.destroy();
      },
    },
    options,
  );
  const ledger = quotaLedger(pool);
  return {
    ...store,
    chargesReadKeysRevision: true,
    // With a charge id (or a keys revision to check), the charge goes through the ledger, so that
    // it can be cancelled if its outcome is never known and reads the keys revision
    // (quota-ledger.ts); without either, the store's own statement.
    async consumeQuotaUpTo(accountId, month, limit, wanted, chargeId, keysRevision, day) {
      if (chargeId === undefined && keysRevision === undefined)
        return store.consumeQuotaUpTo(accountId, month, limit, wanted, undefined, undefined, day);
      // The arguments are checked (and an unknown account named) by the store's own method.
      const dayFits = day === undefined || (isUsageDay(day) && day.startsWith(month));
      if (!Number.isSafeInteger(limit) || limit < 0 || !Number.isSafeInteger(wanted) || wanted < 1 || !isQuotaMonth(month) || !dayFits) {
        return store.consumeQuotaUpTo(accountId, month, limit, wanted, undefined, undefined, day);
      }
      try {
        return await ledger.charge(
          chargeId ?? randomUUID(),
          accountId,
          month,
          limit,
          wanted,
          keysRevision,
          day,
          (options.now ?? (() => new Date()))().toISOString(),
        );
      } catch (error) {
        if ((error as { code?: unknown } | null)?.code === '23503')
          throw new ApiError('NOT_FOUND', `No account has the id '${accountId}'.`);
        throw error;
      }
    },
    cancelCharges: (ids) => ledger.cancel(ids),
    // Read once per event-loop turn by every instance (key-cache.ts): a named statement, parsed and
    // planned once per connection, without Kysely's compilation on each read.
    async keysRevision() {
      const { rows } = await pool.query<{ value: string }>({
        name: 'keys_revision',
        text: "SELECT value FROM revisions WHERE name = 'keys'",
      });
      if (rows.length === 0) throw new Error('the keys revision is missing (migrations not applied)');
      return Number(rows[0]!.value);
    },
  };
}
