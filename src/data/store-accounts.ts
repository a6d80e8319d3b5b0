import { ApiError } from '../domain/errors';
import type { PlanId } from '../domain/plans';
import { newId } from '../domain/keys';
import { canonicalEmail, normalizeEmail, type AccountStore } from '../services/account-store';
import { toAccount, type StoreContext, type Trx } from './store-tables';

type AccountQueries = Pick<
  AccountStore,
  'createAccount' | 'findAccountByEmail' | 'findCredentials' | 'setPasswordHash' | 'findAccountById' | 'setPlan'
>;

const accountById = (q: Trx, id: string) =>
  q.selectFrom('accounts').select(['id', 'email', 'plan', 'created_at']).where('id', '=', id).executeTakeFirst();

/** Accounts: creation, look-up by email or id, password and plan. */
export function accountQueries({ db, dialect, now }: StoreContext): AccountQueries {
  return {
    async createAccount({ email, plan, passwordHash }) {
      const normalized = email === undefined ? null : normalizeEmail(email);
      try {
        const row = await db
          .insertInto('accounts')
          .values({ id: newId('acc'), email: normalized, plan, created_at: now(), password_hash: passwordHash ?? null })
          .returning(['id', 'email', 'plan', 'created_at'])
          .executeTakeFirstOrThrow();
        return toAccount(row);
      } catch (error) {
        if (dialect.isUniqueViolation(error))
          throw new ApiError('INVALID_REQUEST', `An account with the email '${normalized}' already exists.`, { param: 'email' });
        throw error;
      }
    },
    async findAccountByEmail(email) {
      const row = await db
        .selectFrom('accounts')
        .select(['id', 'email', 'plan', 'created_at'])
        .where('email', '=', canonicalEmail(email))
        .executeTakeFirst();
      return row && toAccount(row);
    },
    async findCredentials(email) {
      const row = await db
        .selectFrom('accounts')
        .select(['id', 'email', 'plan', 'created_at', 'password_hash'])
        .where('email', '=', canonicalEmail(email))
        .executeTakeFirst();
      return row && { account: toAccount(row), passwordHash: row.password_hash };
    },
    async setPasswordHash(accountId, passwordHash) {
      await dialect.writeTransaction(db, async (trx) => {
        const updated = await trx
          .updateTable('accounts')
          .set({ password_hash: passwordHash })
          .where('id', '=', accountId)
          .executeTakeFirst();
        if (Number(updated.numUpdatedRows) === 0) throw new ApiError('NOT_FOUND', `No account has the id '${accountId}'.`);
        await trx.deleteFrom('sessions').where('account_id', '=', accountId).execute();
      });
    },
    async findAccountById(id) {
      const row = await accountById(db, id);
      return row && toAccount(row);
    },
    async setPlan(email, plan: PlanId) {
      const row = await db
        .updateTable('accounts')
        .set({ plan })
        .where('email', '=', canonicalEmail(email))
        .returning(['id', 'email', 'plan', 'created_at'])
        .executeTakeFirst();
      if (!row) throw new ApiError('NOT_FOUND', `No account has the email '${canonicalEmail(email)}'.`, { param: 'email' });
      return toAccount(row);
    },
  };
}
