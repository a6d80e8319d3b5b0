import type { OAuthRecordStore } from './oauth/oauth-records';
import { ApiError } from '../domain/errors';
import type { KeyEnv } from '../domain/keys';
import type { PlanId } from '../domain/plans';
import type { WebhookStore } from './webhook-store';

/**
 * Accounts, API keys and monthly usage, behind one interface so that the SQLite store and a later
 * PostgreSQL store are interchangeable. Every method is async and returns plain objects; key hashes
 * and plaintext keys never appear in returned records (the plaintext only once, from createKey and
 * rotateKey). Expected failures are ApiErrors (NOT_FOUND, INVALID_REQUEST) with operator-readable
 * messages. Timestamps are ISO 8601 UTC strings.
 */
export interface Account {
  id: string;
  /** Lower-cased; null for accounts created from the CLI without an email. */
  email: string | null;
  plan: PlanId;
  createdAt: string;
}

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  env: KeyEnv;
  createdAt: string;
  revokedAt: string | null;
  /** The id of the key that replaced this one by rotation. */
  replacedBy: string | null;
  /**
   * When the key stops working, whatever caches hold it: its own expiry, or the end of its grace
   * after a rotation, the earlier of the two (ISO 8601 UTC); null: never.
   */
  expiresAt: string | null;
}

export interface CreatedKey {
  /** The plaintext key: shown once, stored nowhere. */
  key: string;
  record: ApiKeyRecord;
}

/** A key as the account page lists it. */
export interface KeyListing extends ApiKeyRecord {
  /** The key's last 4 characters; null for keys made before they were recorded. */
  tail: string | null;
  /** When the key was last used, recorded coarsely (see recordKeyUse); null when never. */
  lastUsedAt: string | null;
}

/** A log-in session, found by the SHA-256 of its token (the token itself is stored nowhere). */
export interface SessionRecord {
  accountId: string;
  createdAt: string;
  lastSeenAt: string;
}

/** One UTC day of an account's usage. */
export interface DailyUsage {
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  /** Conversions delivered (charged to the quota). */
  delivered: number;
  /** Requests refused because the monthly quota was used up (each refused field of a GraphQL document; a batch once). */
  refusedQuota: number;
  /** Requests refused by the key's request rate limit. */
  refusedRate: number;
}

/** Refusals of one account on one UTC day, to be added to its counts. */
export interface DailyRefusals {
  accountId: string;
  day: string;
  quota: number;
  rate: number;
}

export interface QuotaConsumption {
  allowed: boolean;
  /** The month's usage after the call. */
  used: number;
}

/** What health reports about the account database. */
export interface DatabaseHealth {
  kind: 'sqlite' | 'postgres';
  /** False since a call failed because the database could not answer, until one succeeds again. */
  reachable: boolean;
}

export interface AccountStore {
  /** INVALID_REQUEST when the email is malformed or already used. `passwordHash` is a PHC string. */
  createAccount(input: { email?: string; plan: PlanId; passwordHash?: string }): Promise<Account>;
  /** The account with this email and its password hash (null when it has none), for log-in. */
  findCredentials(email: string): Promise<{ account: Account; passwordHash: string | null } | undefined>;
  /** Replaces the account's password hash and ends all its sessions, in one transaction. NOT_FOUND for an unknown account. */
  setPasswordHash(accountId: string, passwordHash: string): Promise<void>;
  /** The account's keys, revoked ones included, oldest first. */
  listKeys(accountId: string): Promise<KeyListing[]>;
  /** Sets last_used_at of these keys to `at` where it is older (or unset); several instances may race, the latest wins. */
  recordKeyUse(keyIds: readonly string[], at: string): Promise<void>;
  createSession(tokenHash: string, accountId: string, at: string): Promise<void>;
  findSession(tokenHash: string): Promise<SessionRecord | undefined>;
  touchSession(tokenHash: string, at: string): Promise<void>;
  deleteSession(tokenHash: string): Promise<void>;
  /** Deletes every session created at or before `createdBefore` or last seen at or before `lastSeenBefore` (expired ones, as sessionExpiry decides); returns how many. */
  deleteExpiredSessions(createdBefore: string, lastSeenBefore: string): Promise<number>;
  /** Stores (or clears, with null) the session's one-time message; the caller encrypts it. */
  setSessionFlash(tokenHash: string, flash: string | null): Promise<void>;
  /** Returns the session's one-time message and deletes it, atomically: a second call gets null. */
  takeSessionFlash(tokenHash: string): Promise<string | null>;
  findAccountByEmail(email: string): Promise<Account | undefined>;
  findAccountById(id: string): Promise<Account | undefined>;
  /** NOT_FOUND for an unknown email. */
  setPlan(email: string, plan: PlanId): Promise<Account>;
  /**
   * NOT_FOUND for an unknown account. `expiresAt` (ISO 8601 UTC) ends the key; absent or null: never.
   * With `maxLiveKeys`, INVALID_REQUEST when the account holds that many live keys already (counted
   * and inserted in one write transaction, so concurrent creations never pass the bound).
   */
  createKey(accountId: string, env: KeyEnv, expiresAt?: string | null, maxLiveKeys?: number): Promise<CreatedKey>;
  /**
   * The not revoked key with this SHA-256 hash and its account, in one indexed query; a key past
   * its `expiresAt` is returned too (its caller refuses it as expired, saying when).
   */
  findActiveKeyByHash(hash: string): Promise<{ key: ApiKeyRecord; account: Account } | undefined>;
  findKeyById(id: string): Promise<ApiKeyRecord | undefined>;
  /** Idempotent: revoking a revoked key keeps its first revokedAt. NOT_FOUND for an unknown id. */
  revokeKey(id: string): Promise<{ record: ApiKeyRecord; alreadyRevoked: boolean }>;
  /**
   * Creates a key for the same account, env and expiry and, in one transaction, revokes the old one,
   * or with `graceEndsAt` (ISO 8601 UTC) lets it work on until then (or its own expiry, if earlier).
   * NOT_FOUND for an unknown id; INVALID_REQUEST when the key is revoked or already rotated.
   */
  rotateKey(id: string, graceEndsAt?: string): Promise<CreatedKey & { replaced: ApiKeyRecord }>;
  /** Conversions counted for the account in the UTC month `YYYY-MM`; 0 when none. */
  monthlyUsage(accountId: string, month: string): Promise<number>;
  /**
   * Counts `amount` (default 1) conversions against the account's quota for the UTC month `YYYY-MM`
   * if, and only if, the month's usage stays within `limit`: all or nothing, in one atomic statement,
   * so concurrent requests (from any number of processes) never spend more than the limit, and a
   * resolved promise means the usage is committed. `used` is the usage after the call (unchanged
   * when refused). NOT_FOUND for an unknown account; TypeError for a malformed month or amount.
   */
  consumeQuota(accountId: string, month: string, limit: number, amount?: number): Promise<QuotaConsumption>;
  /**
   * Counts as many of `wanted` conversions as the month's quota still allows (0 to `wanted`), in one
   * atomic step: what many requests of one account ask for in one event-loop turn is written at once
   * (group commit). Committed when the promise resolves. NOT_FOUND for an unknown account. With a
   * `chargeId`, the charge can be cancelled later (cancelCharges) when its outcome stayed unknown.
   * A store with `chargesReadKeysRevision` also returns the keys revision, read by the same
   * statement, and, given `keysRevision` (the one its caller authenticated under), charges nothing
   * when the revision has moved from it. With `day` (`YYYY-MM-DD`, UTC, within `month`), what is
   * granted is added to that day's delivered conversions in the same transaction (and taken back
   * with the charge when it is cancelled).
   */
  consumeQuotaUpTo(
    accountId: string,
    month: string,
    limit: number,
    wanted: number,
    chargeId?: string,
    keysRevision?: number,
    day?: string,
  ): Promise<{ granted: number; used: number; keysRevision?: number }>;
  /** Adds refusals to the accounts' days, in one transaction. */
  recordRefusals(refusals: readonly DailyRefusals[]): Promise<void>;
  /** The account's days from `fromDay` to `toDay` (inclusive, `YYYY-MM-DD`) that have any usage, oldest first. */
  dailyUsage(accountId: string, fromDay: string, toDay: string): Promise<DailyUsage[]>;
  /**
   * True when consumeQuotaUpTo reads the keys revision in its own statement (PostgreSQL): a
   * request authenticated from the key cache can then skip the turn's revision read and let its
   * charge check the revision (key-cache.ts). Absent where a revision read costs no round trip.
   */
  readonly chargesReadKeysRevision?: boolean;
  /**
   * Where a charge's outcome can be unknown to its caller (a network between them: PostgreSQL),
   * `chargeId` names it and this cancels charges by their ids, idempotently: what a cancelled charge
   * granted is taken back, and a charge that reaches the database after its cancellation grants
   * nothing. Absent where a failed call never commits (SQLite, in-process).
   */
  cancelCharges?(chargeIds: readonly string[]): Promise<void>;
  /**
   * A number that changes whenever a key is revoked or rotated or an account's plan changes, from
   * any process: a cache of authenticated keys is valid while it stays the same.
   */
  keysRevision(): Promise<number>;
  /**
   * The database's state as the last calls found it, for health; while unreachable, asking starts a
   * cheap probe in the background, so the state recovers without traffic. Optional: test doubles omit it.
   */
  databaseHealth?(): DatabaseHealth;
  /** True while the last calls found the database unreachable; unlike databaseHealth, starts no probe. Optional. */
  knownUnreachable?(): boolean;
  /**
   * The account's webhook endpoints and the outbox of their events (webhook-store.ts). The quota
   * charges above write `quota.threshold` events in their own transaction when they cross 80 % or
   * 100 % of `limit`.
   */
  readonly webhooks: WebhookStore;
  /** The OAuth authorization server's artefacts, stored by the hash of their ids (oauth-adapter.ts). */
  readonly oauth: OAuthRecordStore;
  close(): Promise<void>;
}

const MAX_EMAIL_LENGTH = 254;

/**
 * The form every store keeps and looks up: trimmed and lower-cased, so that `Ann@Example.com`
 * and `ann@example.com` are one account.
 */
export function canonicalEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** canonicalEmail after a sanity check (one '@' with text on both sides, no spaces), not RFC 5322. */
export function normalizeEmail(email: string): string {
  const normalized = canonicalEmail(email);
  const at = normalized.indexOf('@');
  const ok =
    normalized.length <= MAX_EMAIL_LENGTH &&
    at > 0 &&
    at === normalized.lastIndexOf('@') &&
    at < normalized.length - 1 &&
    !/\s/.test(normalized);
  if (!ok) throw new ApiError('INVALID_REQUEST', `'${email.slice(0, 80)}' is not a valid email address.`, { param: 'email' });
  return normalized;
}
