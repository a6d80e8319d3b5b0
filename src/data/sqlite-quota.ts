import BetterSqlite3, { type Database } from 'better-sqlite3';
import { ApiError } from '../domain/errors';
import { isQuotaMonth } from '../domain/quota';
import type { AccountStore } from './store';

type QuotaMethods = Pick<AccountStore, 'consumeQuota'>;

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
  };
}

function checkArguments(month: string, amount: number): void {
  if (!isQuotaMonth(month)) throw new TypeError(`quota month must be YYYY-MM, got ${JSON.stringify(month)}`);
  if (!Number.isSafeInteger(amount) || amount < 1) throw new TypeError(`quota amount must be an integer >= 1, got ${String(amount)}`);
}
