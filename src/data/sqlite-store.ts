import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { createKyselyStore, sqliteImmediateTransaction, type KyselyStoreOptions } from './kysely-store';
import { toAccount, toKey, type StoreTables } from './store-tables';
import { migrate } from './migrations';
import { openSharedSqlite } from './sqlite-file';
import { preparedOnce } from './sqlite-statements';
import { inProcessWakeups, type OutboxWakeups } from './outbox-wakeups';
import { quotaEvents } from './store-webhooks';
import { newEventId } from '../domain/webhooks';
import type { AccountStore } from '../services/account-store';
import { isQuotaMonth, isUsageDay } from '../domain/quota';

export type SqliteStoreOptions = KyselyStoreOptions;

/**
 * AccountStore on one SQLite file (the Kysely store of kysely-store.ts on the SQLite dialect). The
 * CLI and the server are separate processes on the same file: WAL lets readers run during a write,
 * busy_timeout makes a writer wait for the other instead of failing, and every read-then-write runs
 * in BEGIN IMMEDIATE so it never has to be retried.
 */
export function openSqliteStore(file: string, options: SqliteStoreOptions = {}): AccountStore {
  const handle = openSharedSqlite(file, (db) => {
    // Explicit, because better-sqlite3's SQLite defaults to FULL on a new file but NORMAL on a
    // reopened WAL file. NORMAL in WAL mode: a commit survives a crash of the process (quota
    // included), the last commits may roll back on power loss; FULL would fsync every increment.
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db);
  });
  // Each of Kysely's statements prepared once (sqlite-statements.ts), not on every execution.
  const db = new Kysely<StoreTables>({ dialect: new SqliteDialect({ database: preparedOnce(handle) }) });
  const outbox = inProcessWakeups();
  const store = createKyselyStore(
    db,
    {
      name: 'sqlite',
      forUpdate: false,
      keyOrder: 'rowid',
      writeTransaction: sqliteImmediateTransaction,
      isUniqueViolation: (error) => error instanceof BetterSqlite3.SqliteError && error.code === 'SQLITE_CONSTRAINT_UNIQUE',
      isForeignKeyViolation: (error) => error instanceof BetterSqlite3.SqliteError && error.code === 'SQLITE_CONSTRAINT_FOREIGNKEY',
      outbox,
      async close() {
        outbox.close();
        if (handle.open) await db.destroy();
      },
    },
    options,
  );
  return { ...store, ...hotPath(handle, store, () => (options.now ?? (() => new Date()))().toISOString(), outbox) };
}

interface ActiveKeyRow {
  id: string;
  account_id: string;
  env: string;
  created_at: string;
  revoked_at: string | null;
  replaced_by: string | null;
  expires_at: string | null;
  email: string | null;
  plan: string;
  account_created_at: string;
}

/**
 * The queries of the request path as prepared statements, on the same connection and with the
 * same effect as the Kysely store's queries: Kysely compiles and prepares each query anew, which
 * measured 5 to 10 times slower here (scripts: 20,000 calls on a warm file: keysRevision 5 µs vs
 * 28 µs, consumeQuotaUpTo 36 µs vs 144 µs, key lookup 16 µs vs 163 µs; the charge has since lost
 * its RETURNING, below). keysRevision runs once per event-loop turn and consumeQuotaUpTo once per
 * account per turn, so this is the server's floor.
 * The partial grant stays a synchronous transaction (see upTo).
 * PostgreSQL keeps the Kysely queries: there the round trip dominates.
 */
function hotPath(
  handle: BetterSqlite3.Database,
  store: AccountStore,
  now: () => string,
  outbox: OutboxWakeups,
): Pick<AccountStore, 'keysRevision' | 'findActiveKeyByHash' | 'consumeQuotaUpTo'> {
  return { ...keyLookups(handle), ...quotaCharges(handle, store, now, outbox) };
}

/** The keys' revision and the look-up of a live key by its hash. */
function keyLookups(handle: BetterSqlite3.Database): Pick<AccountStore, 'keysRevision' | 'findActiveKeyByHash'> {
  const revision = handle.prepare<[], { value: number }>("SELECT value FROM revisions WHERE name = 'keys'");
  const activeKey = handle.prepare<[string], ActiveKeyRow>(
    `SELECT k.id, k.account_id, k.env, k.created_at, k.revoked_at, k.replaced_by, k.expires_at,
            a.email, a.plan, a.created_at AS account_created_at
       FROM api_keys k JOIN accounts a ON a.id = k.account_id
      WHERE k.key_hash = ? AND k.revoked_at IS NULL`,
  );
  return {
    async keysRevision() {
      return revision.get()!.value;
    },
    async findActiveKeyByHash(hash) {
      const row = activeKey.get(hash);
      if (!row) return undefined;
      return {
        key: toKey(row),
        account: toAccount({ id: row.account_id, email: row.email, plan: row.plan, created_at: row.account_created_at }),
      };
    },
  };
}

/** A charge of the month's quota, the day's count and the events it crossed, in one transaction. */
function quotaCharges(
  handle: BetterSqlite3.Database,
  store: AccountStore,
  now: () => string,
  outbox: OutboxWakeups,
): Pick<AccountStore, 'consumeQuotaUpTo'> {
  // No RETURNING on the request path: SQLite gathers RETURNING rows in an ephemeral table, whose page
  // cache every execution allocates and frees. Where that memory is at the top of the heap, glibc
  // hands it back to the kernel each time (brk, then page faults to take it again): alone in a script,
  // 37 µs of CPU a commit against 11 µs for this upsert and a read of the row in one transaction. In
  // the server, where other allocations sit above it, about 1.5 µs a commit (docs/benchmarks.md).
  const consume = handle.prepare<{ account: string; month: string; amount: number; limit: number }>(
    `INSERT INTO usage (account_id, month, used)
       SELECT @account, @month, @amount WHERE @amount <= @limit
     ON CONFLICT (account_id, month) DO UPDATE SET used = used + excluded.used
       WHERE used + excluded.used <= @limit`,
  );
  const usage = handle.prepare<[string, string], { used: number }>('SELECT used FROM usage WHERE account_id = ? AND month = ?');
  const add = handle.prepare<{ account: string; month: string; amount: number }>(
    `INSERT INTO usage (account_id, month, used) VALUES (@account, @month, @amount)
     ON CONFLICT (account_id, month) DO UPDATE SET used = used + excluded.used`,
  );
  const deliveredOn = handle.prepare<{ account: string; day: string; amount: number }>(
    `INSERT INTO usage_days (account_id, day, delivered) VALUES (@account, @day, @amount)
     ON CONFLICT (account_id, day) DO UPDATE SET delivered = delivered + excluded.delivered`,
  );
  const writeQuotaEvents = quotaEventWriter(handle, now, outbox);
  /** The whole amount when it fits under the limit (the month's new total), else undefined and nothing written. */
  const consumeAll = handle.transaction(
    (params: { account: string; month: string; amount: number; limit: number }, day: string | undefined) => {
      if (consume.run(params).changes !== 1) return undefined;
      if (day !== undefined) deliveredOn.run({ account: params.account, day, amount: params.amount });
      const used = usage.get(params.account, params.month)!.used;
      return writeQuotaEvents(params.account, params.month, params.limit, used - params.amount, used);
    },
  );
  // A partial grant, synchronously under BEGIN IMMEDIATE: the read and the write happen under the
  // write lock without yielding to the event loop, so two store objects in one process cannot wait
  // on each other (an async Kysely transaction holding the lock would make the other's BEGIN block
  // the loop until busy_timeout).
  const upTo = handle.transaction((account: string, month: string, limit: number, wanted: number, day: string | undefined) => {
    const before = usage.get(account, month)?.used ?? 0;
    const granted = Math.max(0, Math.min(wanted, limit - before));
    if (granted === 0) return { granted, used: before };
    add.run({ account, month, amount: granted });
    if (day !== undefined) deliveredOn.run({ account, day, amount: granted });
    return { granted, used: writeQuotaEvents(account, month, limit, before, usage.get(account, month)!.used) };
  });
  return {
    async consumeQuotaUpTo(accountId, month, limit, wanted, chargeId, keysRevision, day) {
      // Everything fits (the usual case): one prepared conditional upsert, and the day's count in the
      // same transaction. Anything else (a partial grant, a bad argument, an unknown account) goes to
      // the store's own method.
      const dayFits = day === undefined || (isUsageDay(day) && day.startsWith(month));
      if (isQuotaMonth(month) && dayFits && Number.isSafeInteger(wanted) && wanted >= 1 && Number.isSafeInteger(limit) && limit >= 0) {
        try {
          const used = consumeAll.immediate({ account: accountId, month, amount: wanted, limit }, day);
          return used !== undefined ? { granted: wanted, used } : upTo.immediate(accountId, month, limit, wanted, day);
        } catch (error) {
          if (!(error instanceof BetterSqlite3.SqliteError && error.code === 'SQLITE_CONSTRAINT_FOREIGNKEY')) throw error;
        }
      }
      // Malformed arguments and unknown accounts: the store's own method says which error.
      return store.consumeQuotaUpTo(accountId, month, limit, wanted, chargeId, keysRevision, day);
    },
  };
}

/**
 * Writes the quota events a charge crossed, inside the charge's transaction (store-webhooks.ts's
 * recordEventIn, as prepared statements): the event once by its identity, then a pending delivery
 * to each endpoint of the account. The dispatcher is woken once the synchronous transaction is over
 * (its pass is a promise, run after it).
 */
function quotaEventWriter(handle: BetterSqlite3.Database, now: () => string, outbox: OutboxWakeups) {
  const insertEvent = handle.prepare<[string, string, string, string, string, string]>(
    'INSERT INTO webhook_events (id, identity, account_id, type, data, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (identity) DO NOTHING',
  );
  const insertDeliveries = handle.prepare<[string, string, string]>(
    'INSERT INTO webhook_deliveries (event_id, endpoint_id, next_attempt_at) SELECT ?, id, ? FROM webhook_endpoints WHERE account_id = ?',
  );
  /** Returns `after`, the month's usage. */
  return (account: string, month: string, limit: number, before: number, after: number): number => {
    for (const event of quotaEvents(account, month, limit, before, after)) {
      const id = newEventId();
      const at = now();
      if (insertEvent.run(id, event.identity, account, event.type, JSON.stringify(event.data), at).changes === 1) {
        insertDeliveries.run(id, at, account);
        outbox.announce();
      }
    }
    return after;
  };
}
