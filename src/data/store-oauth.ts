import type { OAuthRecordStore } from '../services/oauth/oauth-records';
import type { StoreContext } from './store-tables';

/** The authorization server's artefacts (oauth_records): one row each, by model and id hash. */
export function oauthQueries({ db }: StoreContext): OAuthRecordStore {
  return {
    async upsert(row) {
      const values = {
        model: row.model,
        id_hash: row.idHash,
        payload: row.payload,
        grant_hash: row.grantHash,
        uid_hash: row.uidHash,
        account_id: row.accountId,
        expires_at: row.expiresAt,
      };
      await db
        .insertInto('oauth_records')
        .values(values)
        .onConflict((oc) =>
          oc.columns(['model', 'id_hash']).doUpdateSet({
            payload: values.payload,
            grant_hash: values.grant_hash,
            uid_hash: values.uid_hash,
            account_id: values.account_id,
            expires_at: values.expires_at,
          }),
        )
        .execute();
    },
    async find(model, idHash, now) {
      const row = await db
        .selectFrom('oauth_records')
        .select('payload')
        .where('model', '=', model)
        .where('id_hash', '=', idHash)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
        .executeTakeFirst();
      return row?.payload;
    },
    async findByUid(model, uidHash, now) {
      const row = await db
        .selectFrom('oauth_records')
        .select('payload')
        .where('model', '=', model)
        .where('uid_hash', '=', uidHash)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
        .executeTakeFirst();
      return row?.payload;
    },
    async destroy(model, idHash) {
      await db.deleteFrom('oauth_records').where('model', '=', model).where('id_hash', '=', idHash).execute();
    },
    async revokeGrant(grantHash) {
      const result = await db
        .deleteFrom('oauth_records')
        .where((eb) => eb.or([eb('grant_hash', '=', grantHash), eb.and([eb('model', '=', 'Grant'), eb('id_hash', '=', grantHash)])]))
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    async listGrants(accountId, now) {
      const rows = await db
        .selectFrom('oauth_records')
        .select(['id_hash', 'payload', 'expires_at'])
        .where('model', '=', 'Grant')
        .where('account_id', '=', accountId)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
        .execute();
      return rows.map((row) => ({ grantHash: row.id_hash, payload: row.payload, expiresAt: row.expires_at }));
    },
    async deleteExpired(now) {
      const result = await db.deleteFrom('oauth_records').where('expires_at', '<=', now).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
