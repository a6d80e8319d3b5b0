import { ApiError } from '../domain/errors';
import type { KeyEnv } from '../domain/keys';
import type { PlanId } from '../domain/plans';

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
}

export interface CreatedKey {
  /** The plaintext key: shown once, stored nowhere. */
  key: string;
  record: ApiKeyRecord;
}

export interface QuotaConsumption {
  allowed: boolean;
  /** The month's usage after the call. */
  used: number;
}

export interface AccountStore {
  /** INVALID_REQUEST when the email is malformed or already used. */
  createAccount(input: { email?: string; plan: PlanId }): Promise<Account>;
  findAccountByEmail(email: string): Promise<Account | undefined>;
  findAccountById(id: string): Promise<Account | undefined>;
  /** NOT_FOUND for an unknown email. */
  setPlan(email: string, plan: PlanId): Promise<Account>;
  /** NOT_FOUND for an unknown account. */
  createKey(accountId: string, env: KeyEnv): Promise<CreatedKey>;
  /** The active (not revoked) key with this SHA-256 hash and its account, in one indexed query. */
  findActiveKeyByHash(hash: string): Promise<{ key: ApiKeyRecord; account: Account } | undefined>;
  findKeyById(id: string): Promise<ApiKeyRecord | undefined>;
  /** Idempotent: revoking a revoked key keeps its first revokedAt. NOT_FOUND for an unknown id. */
  revokeKey(id: string): Promise<{ record: ApiKeyRecord; alreadyRevoked: boolean }>;
  /**
   * Creates a key for the same account and env and revokes the old one in one transaction.
   * NOT_FOUND for an unknown id; INVALID_REQUEST when the key is already revoked.
   */
  rotateKey(id: string): Promise<CreatedKey & { replaced: ApiKeyRecord }>;
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
   * (group commit). Committed when the promise resolves. NOT_FOUND for an unknown account.
   */
  consumeQuotaUpTo(accountId: string, month: string, limit: number, wanted: number): Promise<{ granted: number; used: number }>;
  /**
   * A number that changes whenever a key is revoked or rotated or an account's plan changes, from
   * any process: a cache of authenticated keys is valid while it stays the same.
   */
  keysRevision(): Promise<number>;
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
