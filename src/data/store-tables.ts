import type { Kysely } from 'kysely';
import type { KeyEnv } from '../domain/keys';
import type { PlanId } from '../domain/plans';
import type { Account, ApiKeyRecord } from '../services/account-store';
import type { OutboxWakeups } from './outbox-wakeups';

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
  usage_days: {
    account_id: string;
    day: string;
    delivered: number | string;
    refused_quota: number | string;
    refused_rate: number | string;
  };
  sessions: { token_hash: string; account_id: string; created_at: string; last_seen_at: string; flash: string | null };
  oauth_records: {
    model: string;
    id_hash: string;
    payload: string;
    grant_hash: string | null;
    uid_hash: string | null;
    account_id: string | null;
    expires_at: string | null;
  };
  revisions: { name: string; value: number | string | bigint };
  webhook_endpoints: { id: string; account_id: string; url: string; secret: string; created_at: string };
  webhook_events: { id: string; identity: string; account_id: string; type: string; data: string; created_at: string };
  webhook_deliveries: {
    event_id: string;
    endpoint_id: string;
    status: string;
    attempts: number;
    next_attempt_at: string;
    last_attempt_at: string | null;
    last_status: number | null;
    last_error: string | null;
    delivered_at: string | null;
  };
}

export type Db = Kysely<StoreTables>;
export type Trx = Kysely<StoreTables>;

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
  /** Wakes the webhook dispatchers when deliveries were written (outbox-wakeups.ts). */
  outbox: OutboxWakeups;
  /** Releases the connection(s). */
  close(): Promise<void>;
}

/** What every group of the store's queries works with: the guarded database, its dialect and the clock. */
export interface StoreContext {
  db: Db;
  dialect: StoreDialect;
  /** The current time as an ISO string, from the store's clock. */
  now: () => string;
}

export const KEY_COLUMNS = ['id', 'account_id', 'env', 'created_at', 'revoked_at', 'replaced_by', 'expires_at'] as const;
export type KeyRow = Pick<StoreTables['api_keys'], (typeof KEY_COLUMNS)[number]>;
export type AccountRow = Pick<StoreTables['accounts'], 'id' | 'email' | 'plan' | 'created_at'>;

export function toAccount(row: AccountRow): Account {
  return { id: row.id, email: row.email, plan: row.plan as PlanId, createdAt: row.created_at };
}

export function toKey(row: KeyRow): ApiKeyRecord {
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

/**
 * Locks the account's row for the rest of the write transaction (PostgreSQL: FOR NO KEY UPDATE, which
 * two such transactions wait on while the foreign-key checks of the request path do not; SQLite holds
 * the write lock already), so a count of what it holds and the insert that follows cannot interleave
 * with another instance's; false for an unknown account.
 */
export async function lockAccount(store: StoreContext, trx: Trx, accountId: string): Promise<boolean> {
  const row = await trx
    .selectFrom('accounts')
    .select('id')
    .where('id', '=', accountId)
    .$if(store.dialect.forUpdate, (b) => b.forNoKeyUpdate())
    .executeTakeFirst();
  return row !== undefined;
}
