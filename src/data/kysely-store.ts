import { sql, type Kysely, type Transaction } from 'kysely';
import { ApiError } from '../domain/errors';
import { isQuotaMonth, isUsageDay } from '../domain/quota';
import { quoteInput } from '../domain/quote-input';
import { generateApiKey, hashApiKey, newId, type KeyEnv } from '../domain/keys';
import { earlierEnd } from '../domain/key-lifetime';
import type { PlanId } from '../domain/plans';
import { canonicalEmail, normalizeEmail, type Account, type AccountStore, type ApiKeyRecord, type CreatedKey, type KeyListing, type SessionRecord } from '../services/account-store';

/** The tables of both schemas (SQLite migrations.ts, PostgreSQL postgres-migrations.ts): same names, same columns, text timestamps. */
export interface StoreTables {
  accounts: { id: string; email: string | null; plan: string; created_at: string; password_hash: string | null };
  api_keys: {
    id: string;
    account_id: string;
    env: string;
    key_hash: string;
    key_tail: string | null;
    created_at: string;
    revoked_at: string | null;
    replaced_by: string | null;
    last_used_at: string | null;
    expires_at: string | null;
  };
  usage: { account_id: string; month: string; used: number | string };
  usage_days: { account_id: string; day: string; delivered: number | string; refused_quota: number | string; refused_rate: number | string };
  sessions: { token_hash: string; account_id: string; created_at: string; last_seen_at: string; flash: string | null };
  revisions: { name: string; value: number | string | bigint };
}

type Db = Kysely<StoreTables>;
type Trx = Kysely<StoreTables>;

/** What differs between the two databases; everything else is one query each, written once. */
export interface StoreDialect {
  name: 'sqlite' | 'postgres';
  /**
   * Runs `work` in a write transaction that no other writer interleaves with: SQLite takes the
   * write lock at BEGIN (BEGIN IMMEDIATE), PostgreSQL locks the rows it reads (SELECT … FOR UPDATE,
   * see `forUpdate`).
   */
  writeTransaction<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T>;
  /** The column that orders keys created in the same millisecond by insertion: SQLite's rowid, PostgreSQL's identity `seq`. */
  keyOrder: 'rowid' | 'seq';
  /** Whether to add FOR UPDATE to a read-then-write's read (PostgreSQL; SQLite has the whole-database lock already). */
  forUpdate: boolean;
  isUniqueViolation(error: unknown): boolean;
  isForeignKeyViolation(error: unknown): boolean;
  /** Releases the connection(s). */
  close(): Promise<void>;
}

export interface KyselyStoreOptions {
  /** The clock for created/revoked timestamps; tests pass a fixed one. */
  now?: () => Date;
}

const KEY_COLUMNS = ['id', 'account_id', 'env', 'created_at', 'revoked_at', 'replaced_by', 'expires_at'] as const;
type KeyRow = Pick<StoreTables['api_keys'], (typeof KEY_COLUMNS)[number]>;
type AccountRow = Pick<StoreTables['accounts'], 'id' | 'email' | 'plan' | 'created_at'>;

/**
 * The AccountStore, written once on Kysely for SQLite and PostgreSQL (store.ts is the contract).
 * Every read-then-write runs in the dialect's write transaction; single-statement writes rely on
 * the statement's own atomicity (conditional UPDATE … RETURNING, INSERT … ON CONFLICT … WHERE).
 */
export function createKyselyStore(database: Db, dialect: StoreDialect, options: KyselyStoreOptions = {}): AccountStore {
  let closed = false;
  // A query after close() fails loudly (Kysely would otherwise reopen its driver).
  const db = database.withPlugin({
    transformQuery(args) {
      if (closed) throw new Error('The account store is closed.');
      return args.node;
    },
    transformResult: async (args) => args.result,
  });
  const now = () => (options.now ?? (() => new Date()))().toISOString();
  const lockRows = dialect.forUpdate;

  const accountById = (q: Trx, id: string) => q.selectFrom('accounts').select(['id', 'email', 'plan', 'created_at']).where('id', '=', id).executeTakeFirst();
  const keyById = (q: Trx, id: string, lock = false) =>
    q
      .selectFrom('api_keys')
      .select(KEY_COLUMNS)
      .where('id', '=', id)
      .$if(lock && lockRows, (b) => b.forUpdate())
      .executeTakeFirst();
  const keyOrNotFound = async (q: Trx, id: string, lock = false): Promise<KeyRow> => {
    const row = await keyById(q, id, lock);
    if (!row) throw new ApiError('NOT_FOUND', `No API key has the id ${quoteInput(id)}.`, { param: 'id' });
    return row;
  };
  const insertKey = async (q: Trx, accountId: string, env: KeyEnv, expiresAt: string | null): Promise<CreatedKey> => {
    const key = generateApiKey(env);
    const id = newId('key');
    // The last 4 characters are the key's checksum: they identify it on the page and reveal no secret bits.
    const row = await q
      .insertInto('api_keys')
      .values({ id, account_id: accountId, env, key_hash: hashApiKey(key), key_tail: key.slice(-4), created_at: now(), expires_at: expiresAt })
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
  const revoke = (q: Trx, id: string, replacedBy: string | null) =>
    q
      .updateTable('api_keys')
      .set({ revoked_at: now(), replaced_by: replacedBy })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .returning(KEY_COLUMNS)
      .executeTakeFirst();
  const usageOf = async (q: Trx, accountId: string, month: string, lock = false) =>
    Number(
      (
        await q
          .selectFrom('usage')
          .select('used')
          .where('account_id', '=', accountId)
          .where('month', '=', month)
          .$if(lock && lockRows, (b) => b.forUpdate())
          .executeTakeFirst()
      )?.used ?? 0,
    );
  /**
   * The conditional upsert: counts `amount` only when the month stays within `limit`, as one
   * statement (atomic on both databases, whatever other processes do). The INSERT branch is
   * guarded too, so a first request bigger than the whole quota is refused rather than inserted.
   * Returns the usage after the call, or undefined when refused.
   */
  const consume = async (accountId: string, month: string, amount: number, limit: number): Promise<number | undefined> => {
    const row = await db
      .insertInto('usage')
      .columns(['account_id', 'month', 'used'])
      .expression(
        db
          .selectNoFrom([sql<string>`${accountId}`.as('account_id'), sql<string>`${month}`.as('month'), sql<number>`cast(${amount} as bigint)`.as('used')])
          .where(sql<boolean>`cast(${amount} as bigint) <= cast(${limit} as bigint)`),
      )
      .onConflict((oc) =>
        oc
          .columns(['account_id', 'month'])
          .doUpdateSet({ used: (eb) => eb(eb.ref('usage.used'), '+', eb.ref('excluded.used')) })
          .where(sql<boolean>`usage.used + excluded.used <= cast(${limit} as bigint)`),
      )
      .returning('used')
      .executeTakeFirst();
    return row === undefined ? undefined : Number(row.used);
  };
  /** Adds to one day's counts of an account (the row is made on its first count). */
  const addToDay = (q: Trx, accountId: string, day: string, counts: { delivered?: number; refused_quota?: number; refused_rate?: number }) =>
    q
      .insertInto('usage_days')
      .values({ account_id: accountId, day, delivered: counts.delivered ?? 0, refused_quota: counts.refused_quota ?? 0, refused_rate: counts.refused_rate ?? 0 })
      .onConflict((oc) =>
        oc.columns(['account_id', 'day']).doUpdateSet({
          delivered: (eb) => eb(eb.ref('usage_days.delivered'), '+', eb.ref('excluded.delivered')),
          refused_quota: (eb) => eb(eb.ref('usage_days.refused_quota'), '+', eb.ref('excluded.refused_quota')),
          refused_rate: (eb) => eb(eb.ref('usage_days.refused_rate'), '+', eb.ref('excluded.refused_rate')),
        }),
      )
      .execute();
  const quotaNotFound = (error: unknown, accountId: string): unknown =>
    dialect.isForeignKeyViolation(error) ? new ApiError('NOT_FOUND', `No account has the id '${accountId}'.`) : error;

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
        if (dialect.isUniqueViolation(error)) throw new ApiError('INVALID_REQUEST', `An account with the email '${normalized}' already exists.`, { param: 'email' });
        throw error;
      }
    },
    async findAccountByEmail(email) {
      const row = await db.selectFrom('accounts').select(['id', 'email', 'plan', 'created_at']).where('email', '=', canonicalEmail(email)).executeTakeFirst();
      return row && toAccount(row);
    },
    async findCredentials(email) {
      const row = await db.selectFrom('accounts').select(['id', 'email', 'plan', 'created_at', 'password_hash']).where('email', '=', canonicalEmail(email)).executeTakeFirst();
      return row && { account: toAccount(row), passwordHash: row.password_hash };
    },
    async setPasswordHash(accountId, passwordHash) {
      await dialect.writeTransaction(db, async (trx) => {
        const updated = await trx.updateTable('accounts').set({ password_hash: passwordHash }).where('id', '=', accountId).executeTakeFirst();
        if (Number(updated.numUpdatedRows) === 0) throw new ApiError('NOT_FOUND', `No account has the id '${accountId}'.`);
        await trx.deleteFrom('sessions').where('account_id', '=', accountId).execute();
      });
    },
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
    async createSession(tokenHash, accountId, at) {
      await db.insertInto('sessions').values({ token_hash: tokenHash, account_id: accountId, created_at: at, last_seen_at: at }).execute();
    },
    async findSession(tokenHash) {
      const row = await db.selectFrom('sessions').select(['account_id', 'created_at', 'last_seen_at']).where('token_hash', '=', tokenHash).executeTakeFirst();
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
          .$if(lockRows, (b) => b.forUpdate())
          .executeTakeFirst();
        const flash = row?.flash ?? null;
        if (flash !== null) await trx.updateTable('sessions').set({ flash: null }).where('token_hash', '=', tokenHash).execute();
        return flash;
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
    async createKey(accountId, env, expiresAt = null) {
      try {
        return await insertKey(db, accountId, env, expiresAt);
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
        .select(['k.id', 'k.account_id', 'k.env', 'k.created_at', 'k.revoked_at', 'k.replaced_by', 'k.expires_at', 'a.email', 'a.plan', 'a.created_at as account_created_at'])
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
      const row = await keyById(db, id);
      return row && toKey(row);
    },
    async revokeKey(id) {
      // One conditional UPDATE: of two racing revocations exactly one sets revoked_at, the other
      // reads the first one's time back.
      const revoked = await revoke(db, id, null);
      if (revoked) return { record: toKey(revoked), alreadyRevoked: false };
      return { record: toKey(await keyOrNotFound(db, id)), alreadyRevoked: true };
    },
    async rotateKey(id, graceEndsAt) {
      return dialect.writeTransaction(db, async (trx) => {
        const old = await keyOrNotFound(trx, id, true);
        if (old.revoked_at !== null) {
          throw new ApiError('INVALID_REQUEST', `API key ${quoteInput(id)} was revoked at ${old.revoked_at} and cannot be rotated; create a new key instead.`, { param: 'id' });
        }
        if (old.replaced_by !== null) {
          throw new ApiError('INVALID_REQUEST', `API key ${quoteInput(id)} was already rotated (replaced by ${old.replaced_by}) and works until ${old.expires_at}; rotate ${old.replaced_by} instead.`, { param: 'id' });
        }
        if (old.expires_at !== null && old.expires_at <= now()) {
          throw new ApiError('INVALID_REQUEST', `API key ${quoteInput(id)} expired at ${old.expires_at} and cannot be rotated; create a new key instead.`, { param: 'id' });
        }
        // The new key keeps the old one's own expiry: a rotation renews the secret, not the term.
        const ownExpiry = old.expires_at;
        const created = await insertKey(trx, old.account_id, old.env as KeyEnv, ownExpiry);
        const replaced = graceEndsAt === undefined ? await revoke(trx, id, created.record.id) : await retire(trx, old, created.record.id, graceEndsAt);
        if (!replaced) throw new Error(`API key ${id} changed during its rotation`);
        return { ...created, replaced: toKey(replaced) };
      });
    },
    async monthlyUsage(accountId, month) {
      return usageOf(db, accountId, month);
    },
    async consumeQuota(accountId, month, limit, amount = 1) {
      checkArguments(month, amount);
      if (!Number.isSafeInteger(limit) || limit < 0) throw new TypeError(`consumeQuota: limit must be an integer >= 0, got ${String(limit)}`);
      let used: number | undefined;
      try {
        used = await consume(accountId, month, amount, limit);
      } catch (error) {
        throw quotaNotFound(error, accountId);
      }
      if (used !== undefined) return { allowed: true, used };
      // Refused: the read below only reports the state; it decides nothing, so it may be stale.
      return { allowed: false, used: await usageOf(db, accountId, month) };
    },
    async consumeQuotaUpTo(accountId, month, limit, wanted, _chargeId, _keysRevision, day) {
      checkArguments(month, wanted);
      if (!Number.isSafeInteger(limit) || limit < 0) throw new TypeError(`consumeQuotaUpTo: limit must be an integer >= 0, got ${String(limit)}`);
      if (day !== undefined && !(isUsageDay(day) && day.startsWith(month))) throw new TypeError(`consumeQuotaUpTo: day must be YYYY-MM-DD within ${month}, got ${JSON.stringify(day)}`);
      try {
        // The usual case, everything fits: one conditional statement. Only a turn that asks for more
        // than is left pays for the transaction that grants part of it. A day to count on also goes
        // through the transaction, so the day and the month are written together or not at all.
        if (day === undefined) {
          const all = await consume(accountId, month, wanted, limit);
          if (all !== undefined) return { granted: wanted, used: all };
        }
        return await dialect.writeTransaction(db, async (trx) => {
          // Make sure the month's row exists (a first request may ask for more than the whole quota),
          // then lock it: on PostgreSQL a concurrent grant waits here until this one commits.
          await trx.insertInto('usage').values({ account_id: accountId, month, used: 0 }).onConflict((oc) => oc.doNothing()).execute();
          const before = await usageOf(trx, accountId, month, true);
          const granted = Math.max(0, Math.min(wanted, limit - before));
          if (granted === 0) return { granted, used: before };
          if (day !== undefined) await addToDay(trx, accountId, day, { delivered: granted });
          const row = await trx
            .updateTable('usage')
            .set((eb) => ({ used: eb('used', '+', granted) }))
            .where('account_id', '=', accountId)
            .where('month', '=', month)
            .returning('used')
            .executeTakeFirstOrThrow();
          return { granted, used: Number(row.used) };
        });
      } catch (error) {
        throw quotaNotFound(error, accountId);
      }
    },
    async recordRefusals(refusals) {
      if (refusals.length === 0) return;
      await dialect.writeTransaction(db, async (trx) => {
        for (const { accountId, day, quota, rate } of refusals) await addToDay(trx, accountId, day, { refused_quota: quota, refused_rate: rate });
      });
    },
    async dailyUsage(accountId, fromDay, toDay) {
      const rows = await db
        .selectFrom('usage_days')
        .select(['day', 'delivered', 'refused_quota', 'refused_rate'])
        .where('account_id', '=', accountId)
        .where('day', '>=', fromDay)
        .where('day', '<=', toDay)
        .orderBy('day')
        .execute();
      return rows.map((row) => ({ day: row.day, delivered: Number(row.delivered), refusedQuota: Number(row.refused_quota), refusedRate: Number(row.refused_rate) }));
    },
    async close() {
      if (closed) return;
      closed = true;
      await dialect.close();
    },
  };
}

/** BEGIN IMMEDIATE on Kysely's one SQLite connection (its mutex keeps every other query out meanwhile). */
export async function sqliteImmediateTransaction<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T> {
  return db.connection().execute(async (connection) => {
    await sql`BEGIN IMMEDIATE`.execute(connection);
    try {
      const result = await work(connection);
      await sql`COMMIT`.execute(connection);
      return result;
    } catch (error) {
      await sql`ROLLBACK`.execute(connection).catch(() => undefined);
      throw error;
    }
  });
}

/** A PostgreSQL transaction (READ COMMITTED; the reads that decide take FOR UPDATE locks). */
export function postgresTransaction<T>(db: Db, work: (trx: Transaction<StoreTables>) => Promise<T>): Promise<T> {
  return db.transaction().execute(work);
}

function checkArguments(month: string, amount: number): void {
  if (!isQuotaMonth(month)) throw new TypeError(`quota month must be YYYY-MM, got ${JSON.stringify(month)}`);
  if (!Number.isSafeInteger(amount) || amount < 1) throw new TypeError(`quota amount must be an integer >= 1, got ${String(amount)}`);
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
    expiresAt: row.expires_at,
  };
}
