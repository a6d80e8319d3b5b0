import BetterSqlite3 from 'better-sqlite3';
import { openSharedSqlite } from './sqlite-file';
import { ApiError } from '../domain/errors';
import { quoteInput } from '../domain/quote-input';
import { generateApiKey, hashApiKey, newId, type KeyEnv } from '../domain/keys';
import type { PlanId } from '../domain/plans';
import { migrate } from './migrations';
import { sqliteQuota } from './sqlite-quota';
import { canonicalEmail, normalizeEmail, type Account, type AccountStore, type ApiKeyRecord, type CreatedKey } from './store';

export interface SqliteStoreOptions {
  /** The clock for created/revoked timestamps; tests pass a fixed one. */
  now?: () => Date;
}

interface AccountRow { id: string; email: string | null; plan: string; created_at: string }
interface KeyRow { id: string; account_id: string; env: string; created_at: string; revoked_at: string | null; replaced_by: string | null }

const KEY_COLUMNS = 'id, account_id, env, created_at, revoked_at, replaced_by';

/**
 * AccountStore on one SQLite file. The CLI and the server are separate processes on the same file:
 * WAL lets readers run during a write, busy_timeout makes a writer wait for the other instead of
 * failing, and every read-then-write runs in BEGIN IMMEDIATE so it never has to be retried.
 */
export function openSqliteStore(file: string, options: SqliteStoreOptions = {}): AccountStore {
  const now = () => (options.now ?? (() => new Date()))().toISOString();
  const db = openSharedSqlite(file, (handle) => {
    // Explicit, because better-sqlite3's SQLite defaults to FULL on a new file but NORMAL on a
    // reopened WAL file. NORMAL in WAL mode: a commit survives a crash of the process (quota
    // included), the last commits may roll back on power loss; FULL would fsync every increment.
    handle.pragma('synchronous = NORMAL');
    handle.pragma('foreign_keys = ON');
    migrate(handle);
  });

  const sql = {
    insertAccount: db.prepare('INSERT INTO accounts (id, email, plan, created_at) VALUES (?, ?, ?, ?)'),
    accountById: db.prepare<[string], AccountRow>('SELECT id, email, plan, created_at FROM accounts WHERE id = ?'),
    accountByEmail: db.prepare<[string], AccountRow>('SELECT id, email, plan, created_at FROM accounts WHERE email = ?'),
    setPlan: db.prepare<[string, string], AccountRow>('UPDATE accounts SET plan = ? WHERE email = ? RETURNING id, email, plan, created_at'),
    insertKey: db.prepare('INSERT INTO api_keys (id, account_id, env, key_hash, created_at) VALUES (?, ?, ?, ?, ?)'),
    keyById: db.prepare<[string], KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ?`),
    activeKeyByHash: db.prepare<[string], KeyRow & { email: string | null; plan: string; account_created_at: string }>(
      `SELECT k.id, k.account_id, k.env, k.created_at, k.revoked_at, k.replaced_by,
              a.email, a.plan, a.created_at AS account_created_at
         FROM api_keys k JOIN accounts a ON a.id = k.account_id
        WHERE k.key_hash = ? AND k.revoked_at IS NULL`,
    ),
    revokeKey: db.prepare<[string, string | null, string], KeyRow>(
      `UPDATE api_keys SET revoked_at = ?, replaced_by = ? WHERE id = ? AND revoked_at IS NULL RETURNING ${KEY_COLUMNS}`,
    ),
    usage: db.prepare<[string, string], { used: number }>('SELECT used FROM usage WHERE account_id = ? AND month = ?'),
  };

  const insertKey = (accountId: string, env: KeyEnv): CreatedKey => {
    const key = generateApiKey(env);
    const id = newId('key');
    sql.insertKey.run(id, accountId, env, hashApiKey(key), now());
    return { key, record: toKey(sql.keyById.get(id)!) };
  };
  const keyOrNotFound = (id: string): KeyRow => {
    const row = sql.keyById.get(id);
    if (!row) throw new ApiError('NOT_FOUND', `No API key has the id ${quoteInput(id)}.`, { param: 'id' });
    return row;
  };

  const createKey = db.transaction((accountId: string, env: KeyEnv): CreatedKey => {
    if (!sql.accountById.get(accountId)) throw new ApiError('NOT_FOUND', `No account has the id ${quoteInput(accountId)}.`);
    return insertKey(accountId, env);
  });
  const revokeKey = db.transaction((id: string) => {
    const old = keyOrNotFound(id);
    if (old.revoked_at !== null) return { record: toKey(old), alreadyRevoked: true };
    return { record: toKey(sql.revokeKey.get(now(), null, id)!), alreadyRevoked: false };
  });
  const rotateKey = db.transaction((id: string) => {
    const old = keyOrNotFound(id);
    if (old.revoked_at !== null) {
      throw new ApiError('INVALID_REQUEST', `API key ${quoteInput(id)} was revoked at ${old.revoked_at} and cannot be rotated; create a new key instead.`, { param: 'id' });
    }
    const created = insertKey(old.account_id, old.env as KeyEnv);
    const replaced = toKey(sql.revokeKey.get(now(), created.record.id, id)!);
    return { ...created, replaced };
  });

  return {
    async createAccount({ email, plan }) {
      const normalized = email === undefined ? null : normalizeEmail(email);
      const id = newId('acc');
      try {
        sql.insertAccount.run(id, normalized, plan, now());
      } catch (error) {
        if (isUniqueViolation(error)) throw new ApiError('INVALID_REQUEST', `An account with the email '${normalized}' already exists.`, { param: 'email' });
        throw error;
      }
      return toAccount(sql.accountById.get(id)!);
    },
    async findAccountByEmail(email) {
      const row = sql.accountByEmail.get(canonicalEmail(email));
      return row && toAccount(row);
    },
    async findAccountById(id) {
      const row = sql.accountById.get(id);
      return row && toAccount(row);
    },
    async setPlan(email, plan: PlanId) {
      const row = sql.setPlan.get(plan, canonicalEmail(email));
      if (!row) throw new ApiError('NOT_FOUND', `No account has the email '${canonicalEmail(email)}'.`, { param: 'email' });
      return toAccount(row);
    },
    async createKey(accountId, env) {
      return createKey.immediate(accountId, env);
    },
    async findActiveKeyByHash(hash) {
      const row = sql.activeKeyByHash.get(hash);
      if (!row) return undefined;
      return {
        key: toKey(row),
        account: toAccount({ id: row.account_id, email: row.email, plan: row.plan, created_at: row.account_created_at }),
      };
    },
    async findKeyById(id) {
      const row = sql.keyById.get(id);
      return row && toKey(row);
    },
    async revokeKey(id) {
      return revokeKey.immediate(id);
    },
    async rotateKey(id) {
      return rotateKey.immediate(id);
    },
    async monthlyUsage(accountId, month) {
      return sql.usage.get(accountId, month)?.used ?? 0;
    },
    ...sqliteQuota(db),
    async close() {
      if (db.open) db.close();
    },
  };
}

function toAccount(row: AccountRow): Account {
  return { id: row.id, email: row.email, plan: row.plan as PlanId, createdAt: row.created_at };
}

function toKey(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    env: row.env as KeyEnv,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    replacedBy: row.replaced_by,
  };
}

function isUniqueViolation(error: unknown): boolean {
  return error instanceof BetterSqlite3.SqliteError && error.code === 'SQLITE_CONSTRAINT_UNIQUE';
}
