import BetterSqlite3 from 'better-sqlite3';
import { openSharedSqlite } from './sqlite-file';
import { ApiError } from '../domain/errors';
import { quoteInput } from '../domain/quote-input';
import { generateApiKey, hashApiKey, newId, type KeyEnv } from '../domain/keys';
import type { PlanId } from '../domain/plans';
import { migrate } from './migrations';
import { sqliteQuota } from './sqlite-quota';
import { sqliteSessions } from './sqlite-sessions';
import { canonicalEmail, normalizeEmail, type Account, type AccountStore, type ApiKeyRecord, type CreatedKey, type KeyListing } from '../services/account-store';

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
    insertAccount: db.prepare('INSERT INTO accounts (id, email, plan, created_at, password_hash) VALUES (?, ?, ?, ?, ?)'),
    credentials: db.prepare<[string], AccountRow & { password_hash: string | null }>('SELECT id, email, plan, created_at, password_hash FROM accounts WHERE email = ?'),
    setPassword: db.prepare<[string, string]>('UPDATE accounts SET password_hash = ? WHERE id = ?'),
    endSessions: db.prepare<[string]>('DELETE FROM sessions WHERE account_id = ?'),
    listKeys: db.prepare<[string], KeyRow & { key_tail: string | null; last_used_at: string | null }>(
      `SELECT ${KEY_COLUMNS}, key_tail, last_used_at FROM api_keys WHERE account_id = ? ORDER BY created_at, rowid`,
    ),
    recordKeyUse: db.prepare<[string, string, string]>('UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)'),
    accountById: db.prepare<[string], AccountRow>('SELECT id, email, plan, created_at FROM accounts WHERE id = ?'),
    accountByEmail: db.prepare<[string], AccountRow>('SELECT id, email, plan, created_at FROM accounts WHERE email = ?'),
    setPlan: db.prepare<[string, string], AccountRow>('UPDATE accounts SET plan = ? WHERE email = ? RETURNING id, email, plan, created_at'),
    insertKey: db.prepare('INSERT INTO api_keys (id, account_id, env, key_hash, key_tail, created_at) VALUES (?, ?, ?, ?, ?, ?)'),
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
    keysRevision: db.prepare<[], { value: number }>("SELECT value FROM revisions WHERE name = 'keys'"),
  };

  const insertKey = (accountId: string, env: KeyEnv): CreatedKey => {
    const key = generateApiKey(env);
    const id = newId('key');
    // The last 4 characters are the key's checksum: they identify it on the page and reveal no secret bits.
    sql.insertKey.run(id, accountId, env, hashApiKey(key), key.slice(-4), now());
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
  const setPasswordHash = db.transaction((accountId: string, passwordHash: string) => {
    if (sql.setPassword.run(passwordHash, accountId).changes === 0) throw new ApiError('NOT_FOUND', `No account has the id '${accountId}'.`);
    sql.endSessions.run(accountId);
  });
  const recordKeyUse = db.transaction((ids: readonly string[], at: string) => {
    for (const id of ids) sql.recordKeyUse.run(at, id, at);
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
    async createAccount({ email, plan, passwordHash }) {
      const normalized = email === undefined ? null : normalizeEmail(email);
      const id = newId('acc');
      try {
        sql.insertAccount.run(id, normalized, plan, now(), passwordHash ?? null);
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
    async findCredentials(email) {
      const row = sql.credentials.get(canonicalEmail(email));
      return row && { account: toAccount(row), passwordHash: row.password_hash };
    },
    async setPasswordHash(accountId, passwordHash) {
      setPasswordHash.immediate(accountId, passwordHash);
    },
    async listKeys(accountId) {
      return sql.listKeys.all(accountId).map((row): KeyListing => ({ ...toKey(row), tail: row.key_tail, lastUsedAt: row.last_used_at }));
    },
    async recordKeyUse(ids, at) {
      if (ids.length > 0) recordKeyUse.immediate(ids, at);
    },
    ...sqliteSessions(db),
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
    async keysRevision() {
      return sql.keysRevision.get()!.value;
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
