import type { AccountStore, SessionRecord } from '../services/account-store';
import type { StoreContext } from './store-tables';

type SessionQueries = Pick<
  AccountStore,
  'createSession' | 'findSession' | 'touchSession' | 'deleteSession' | 'deleteExpiredSessions' | 'setSessionFlash' | 'takeSessionFlash'
>;

/** Sign-in sessions of the account pages, and the one-time flash message each may carry. */
export function sessionQueries({ db, dialect }: StoreContext): SessionQueries {
  return {
    async createSession(tokenHash, accountId, at) {
      await db.insertInto('sessions').values({ token_hash: tokenHash, account_id: accountId, created_at: at, last_seen_at: at }).execute();
    },
    async findSession(tokenHash) {
      const row = await db
        .selectFrom('sessions')
        .select(['account_id', 'created_at', 'last_seen_at'])
        .where('token_hash', '=', tokenHash)
        .executeTakeFirst();
      return row && ({ accountId: row.account_id, createdAt: row.created_at, lastSeenAt: row.last_seen_at } satisfies SessionRecord);
    },
    async touchSession(tokenHash, at) {
      await db.updateTable('sessions').set({ last_seen_at: at }).where('token_hash', '=', tokenHash).execute();
    },
    async deleteSession(tokenHash) {
      await db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
    },
    async deleteExpiredSessions(createdBefore, lastSeenBefore) {
      const result = await db
        .deleteFrom('sessions')
        .where((eb) => eb.or([eb('created_at', '<=', createdBefore), eb('last_seen_at', '<=', lastSeenBefore)]))
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    async setSessionFlash(tokenHash, flash) {
      await db.updateTable('sessions').set({ flash }).where('token_hash', '=', tokenHash).execute();
    },
    async takeSessionFlash(tokenHash) {
      return dialect.writeTransaction(db, async (trx) => {
        const row = await trx
          .selectFrom('sessions')
          .select('flash')
          .where('token_hash', '=', tokenHash)
          .$if(dialect.forUpdate, (b) => b.forUpdate())
          .executeTakeFirst();
        const flash = row?.flash ?? null;
        if (flash !== null) await trx.updateTable('sessions').set({ flash: null }).where('token_hash', '=', tokenHash).execute();
        return flash;
      });
    },
  };
}
