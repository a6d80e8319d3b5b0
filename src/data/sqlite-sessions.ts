import type { Database } from 'better-sqlite3';
import type { AccountStore, SessionRecord } from '../services/account-store';

type SessionMethods = Pick<
  AccountStore,
  'createSession' | 'findSession' | 'touchSession' | 'deleteSession' | 'deleteExpiredSessions' | 'setSessionFlash' | 'takeSessionFlash'
>;

interface SessionRow { account_id: string; created_at: string; last_seen_at: string }

/** The session half of the SQLite store: one plain statement per method, keyed by the token's hash. */
export function sqliteSessions(db: Database): SessionMethods {
  const sql = {
    insert: db.prepare<[string, string, string, string]>('INSERT INTO sessions (token_hash, account_id, created_at, last_seen_at) VALUES (?, ?, ?, ?)'),
    find: db.prepare<[string], SessionRow>('SELECT account_id, created_at, last_seen_at FROM sessions WHERE token_hash = ?'),
    touch: db.prepare<[string, string]>('UPDATE sessions SET last_seen_at = ? WHERE token_hash = ?'),
    remove: db.prepare<[string]>('DELETE FROM sessions WHERE token_hash = ?'),
    removeExpired: db.prepare<[string, string]>('DELETE FROM sessions WHERE created_at <= ? OR last_seen_at <= ?'),
    setFlash: db.prepare<[string | null, string]>('UPDATE sessions SET flash = ? WHERE token_hash = ?'),
    flash: db.prepare<[string], { flash: string | null }>('SELECT flash FROM sessions WHERE token_hash = ?'),
  };
  const takeFlash = db.transaction((tokenHash: string) => {
    const flash = sql.flash.get(tokenHash)?.flash ?? null;
    if (flash !== null) sql.setFlash.run(null, tokenHash);
    return flash;
  });

  return {
    async createSession(tokenHash, accountId, at) {
      sql.insert.run(tokenHash, accountId, at, at);
    },
    async findSession(tokenHash) {
      const row = sql.find.get(tokenHash);
      return row && ({ accountId: row.account_id, createdAt: row.created_at, lastSeenAt: row.last_seen_at } satisfies SessionRecord);
    },
    async touchSession(tokenHash, at) {
      sql.touch.run(at, tokenHash);
    },
    async deleteSession(tokenHash) {
      sql.remove.run(tokenHash);
    },
    async deleteExpiredSessions(createdBefore, lastSeenBefore) {
      return sql.removeExpired.run(createdBefore, lastSeenBefore).changes;
    },
    async setSessionFlash(tokenHash, flash) {
      sql.setFlash.run(flash, tokenHash);
    },
    async takeSessionFlash(tokenHash) {
      return takeFlash.immediate(tokenHash);
    },
  };
}
