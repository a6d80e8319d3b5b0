import { sql } from 'kysely';
import { ApiError } from '../domain/errors';
import { quoteInput } from '../domain/quote-input';
import { generateApiKey, hashApiKey, newId, type KeyEnv } from '../domain/keys';
import { earlierEnd } from '../domain/key-lifetime';
import type { AccountStore, CreatedKey, KeyListing } from '../services/account-store';
import { KEY_COLUMNS, toAccount, toKey, type KeyRow, type StoreContext, type Trx } from './store-tables';

type KeyQueries = Pick<
  AccountStore,
  'listKeys' | 'recordKeyUse' | 'createKey' | 'findActiveKeyByHash' | 'keysRevision' | 'findKeyById' | 'revokeKey' | 'rotateKey'
>;

/** API keys: creation, listing, look-up by hash or id, last use, revocation and rotation. */
export function keyQueries(store: StoreContext): KeyQueries {
  const { db, dialect } = store;
  return {
    async listKeys(accountId) {
      const rows = await db
        .selectFrom('api_keys')
        .select([...KEY_COLUMNS, 'key_tail', 'last_used_at'])
        .where('account_id', '=', accountId)
        .orderBy('created_at')
        .orderBy(sql.ref(dialect.keyOrder))
        .execute();
      return rows.map((row): KeyListing => ({ ...toKey(row), tail: row.key_tail, lastUsedAt: row.last_used_at }));
    },
    async recordKeyUse(ids, at) {
      if (ids.length === 0) return;
      // One statement: the latest time wins whatever order the instances write in.
      await db
        .updateTable('api_keys')
        .set({ last_used_at: at })
        .where('id', 'in', ids)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
        .execute();
    },
    async createKey(accountId, env, expiresAt = null) {
      try {
        return await insertKey(store, db, accountId, env, expiresAt);
      } catch (error) {
        // The foreign key decides, in the same statement: no window between a check and the insert.
        if (dialect.isForeignKeyViolation(error)) throw new ApiError('NOT_FOUND', `No account has the id ${quoteInput(accountId)}.`);
        throw error;
      }
    },
    async findActiveKeyByHash(hash) {
      const row = await db
        .selectFrom('api_keys as k')
        .innerJoin('accounts as a', 'a.id', 'k.account_id')
        .select([
          'k.id',
          'k.account_id',
          'k.env',
          'k.created_at',
          'k.revoked_at',
          'k.replaced_by',
          'k.expires_at',
          'a.email',
          'a.plan',
          'a.created_at as account_created_at',
        ])
        .where('k.key_hash', '=', hash)
        .where('k.revoked_at', 'is', null)
        .executeTakeFirst();
      if (!row) return undefined;
      return {
        key: toKey(row),
        account: toAccount({ id: row.account_id, email: row.email, plan: row.plan, created_at: row.account_created_at }),
      };
    },
    async keysRevision() {
      const row = await db.selectFrom('revisions').select('value').where('name', '=', 'keys').executeTakeFirstOrThrow();
      return Number(row.value);
    },
    async findKeyById(id) {
      const row = await keyById(store, db, id);
      return row && toKey(row);
    },
    async revokeKey(id) {
      // One conditional UPDATE: of two racing revocations exactly one sets revoked_at, the other
      // reads the first one's time back.
      const revoked = await revoke(store, db, id, null);
      if (revoked) return { record: toKey(revoked), alreadyRevoked: false };
      return { record: toKey(await keyOrNotFound(store, db, id)), alreadyRevoked: true };
    },
    async rotateKey(id, graceEndsAt) {
      return rotateKey(store, id, graceEndsAt);
    },
  };
}

/** Replaces a live key by a new one of the same account, env and expiry, in one write transaction. */
async function rotateKey(store: StoreContext, id: string, graceEndsAt: string | undefined): ReturnType<AccountStore['rotateKey']> {
  return store.dialect.writeTransaction(store.db, async (trx) => {
    const old = await keyOrNotFound(store, trx, id, true);
    if (old.revoked_at !== null) {
      throw new ApiError(
        'INVALID_REQUEST',
        `API key ${quoteInput(id)} was revoked at ${old.revoked_at} and cannot be rotated; create a new key instead.`,
        { param: 'id' },
      );
    }
    if (old.replaced_by !== null) {
      throw new ApiError(
        'INVALID_REQUEST',
        `API key ${quoteInput(id)} was already rotated (replaced by ${old.replaced_by}) and works until ${old.expires_at}; rotate ${old.replaced_by} instead.`,
        { param: 'id' },
      );
    }
    if (old.expires_at !== null && old.expires_at <= store.now()) {
      throw new ApiError(
        'INVALID_REQUEST',
        `API key ${quoteInput(id)} expired at ${old.expires_at} and cannot be rotated; create a new key instead.`,
        { param: 'id' },
      );
    }
    // The new key keeps the old one's own expiry: a rotation renews the secret, not the term.
    const ownExpiry = old.expires_at;
    const created = await insertKey(store, trx, old.account_id, old.env as KeyEnv, ownExpiry);
    const replaced =
      graceEndsAt === undefined ? await revoke(store, trx, id, created.record.id) : await retire(trx, old, created.record.id, graceEndsAt);
    if (!replaced) throw new Error(`API key ${id} changed during its rotation`);
    return { ...created, replaced: toKey(replaced) };
  });
}

const keyById = (store: StoreContext, q: Trx, id: string, lock = false) =>
  q
    .selectFrom('api_keys')
    .select(KEY_COLUMNS)
    .where('id', '=', id)
    .$if(lock && store.dialect.forUpdate, (b) => b.forUpdate())
    .executeTakeFirst();

const keyOrNotFound = async (store: StoreContext, q: Trx, id: string, lock = false): Promise<KeyRow> => {
  const row = await keyById(store, q, id, lock);
  if (!row) throw new ApiError('NOT_FOUND', `No API key has the id ${quoteInput(id)}.`, { param: 'id' });
  return row;
};

const insertKey = async (store: StoreContext, q: Trx, accountId: string, env: KeyEnv, expiresAt: string | null): Promise<CreatedKey> => {
  const key = generateApiKey(env);
  const id = newId('key');
  // The last 4 characters are the key's checksum: they identify it on the page and reveal no secret bits.
  const row = await q
    .insertInto('api_keys')
    .values({
      id,
      account_id: accountId,
      env,
      key_hash: hashApiKey(key),
      key_tail: key.slice(-4),
      created_at: store.now(),
      expires_at: expiresAt,
    })
    .returning(KEY_COLUMNS)
    .executeTakeFirstOrThrow();
  return { key, record: toKey(row) };
};

/** Ends the old key of a rotation at `graceEndsAt` (or its own expiry, if earlier), not revoked. */
const retire = (q: Trx, old: KeyRow, replacedBy: string, graceEndsAt: string) =>
  q
    .updateTable('api_keys')
    .set({ replaced_by: replacedBy, expires_at: earlierEnd(old.expires_at, graceEndsAt) })
    .where('id', '=', old.id)
    .where('revoked_at', 'is', null)
    .where('replaced_by', 'is', null)
    .returning(KEY_COLUMNS)
    .executeTakeFirst();

const revoke = (store: StoreContext, q: Trx, id: string, replacedBy: string | null) =>
  q
    .updateTable('api_keys')
    .set({ revoked_at: store.now(), replaced_by: replacedBy })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .returning(KEY_COLUMNS)
    .executeTakeFirst();
