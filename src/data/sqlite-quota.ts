import BetterSqlite3, { type Database } from 'better-sqlite3';
import { ApiError } from '../domain/errors';
import { isQuotaMonth } from '../domain/quota';
import type { AccountStore } from '../services/account-store';

type QuotaMethods = Pick<AccountStore, 'consumeQuota' | 'consumeQuotaUpTo'>;

/**
 * The monthly quota counters of the SQLite store (the `usage` table of migration 1).
 *
 * consumeQuota is one conditional upsert: SQLite runs a single statement atomically under the
 * database write lock, so two servers and the CLI on one file can never push `used` past the limit,
 * and no read-then-write race exists to lose. The INSERT branch is guarded too (`WHERE amount <=
 * limit`), so a first request bigger than the whole quota is refused rather than inserted. A
 * statement that returned is committed: it survives a crash of the process (see the synchronous
 * pragma in sqlite-store.ts for power loss).
 */
export function sqliteQuota(db: Database): QuotaMethods {
  const consume = db.prepare<{ account: string; month: string; amount: number; limit: number }, { used: number }>(
    `INSERT INTO usage (account_id, month, used)
       SELECT @account, @month, @amount WHERE @amount <= @limit
     ON CONFLICT (account_id, month) DO UPDATE SET used = used + excluded.used
       WHERE used + excluded.used <= @limit
     RETURNING used`,
  );
  const usage = db.prepare<[string, string], { used: number }>('SELECT used FROM usage WHERE account_id = ? AND month = ?');
  const add = db.prepare<{ account: string; month: string; amount: number }, { used: number }>(
    `INSERT INTO usage (account_id, month, used) VALUES (@account, @month, @amount)
     ON CONFLICT (account_id, month) DO UPDATE SET used = used + excluded.used
     RETURNING used`,
  );
  // BEGIN IMMEDIATE: the read and the write happen under the write lock, so no other process can
  // spend in between; the grant never takes the month past the limit.
  const upTo = db.transaction((account: string, month: string, limit: number, wanted: number) => {
    const before = usage.get(account, month)?.used ?? 0;
    const granted = Math.max(0, Math.min(wanted, limit - before));
    if (granted === 0) return { granted, used: before };
    return { granted, used: add.get({ account, month, amount: granted })!.used };
  });

  return {
    async consumeQuota(accountId, month, limit, amount = 1) {
      checkArguments(month, amount);
      if (!Number.isSafeInteger(limit) || limit < 0) throw new TypeError(`consumeQuota: limit must be an integer >= 0, got ${String(limit)}`);
      let row: { used: number } | undefined;
      try {
        row = consume.get({ account: accountId, month, amount, limit });
      } catch (error) {
        if (error instanceof BetterSqlite3.SqliteError && error.code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
          throw new ApiError('NOT_FOUND', `No account has the id '${accountId}'.`);
        }
        throw error;
      }
      if (row) return { allowed: true, used: row.used };
      // Refused: the read below only reports the state; it decides nothing, so it may be stale.
      return { allowed: false, used: usage.get(accountId, month)?.used ?? 0 };
    },
    async consumeQuotaUpTo(accountId, month, limit, wanted) {
      checkArguments(month, wanted);
      if (!Number.isSafeInteger(limit) || limit < 0) throw new TypeError(`consumeQuotaUpTo: limit must be an integer >= 0, got ${String(limit)}`);
      try {
        // The usual case, everything fits: one conditional statement. Only a turn that asks for more
        // than is left pays for the transaction that grants part of it.
        const all = consume.get({ account: accountId, month, amount: wanted, limit });
        return all ? { granted: wanted, used: all.used } : upTo.immediate(accountId, month, limit, wanted);
      } catch (error) {
        if (error instanceof BetterSqlite3.SqliteError && error.code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
          throw new ApiError('NOT_FOUND', `No account has the id '${accountId}'.`);
        }
        throw error;
      }
    },
  };
}

function checkArguments(month: string, amount: number): void {
  if (!isQuotaMonth(month)) throw new TypeError(`quota month must be YYYY-MM, got ${JSON.stringify(month)}`);
  if (!Number.isSafeInteger(amount) || amount < 1) throw new TypeError(`quota amount must be an integer >= 1, got ${String(amount)}`);
}
