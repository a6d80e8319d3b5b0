import type { Account, AccountStore, KeyListing } from '../services/account-store';
import { currentMonth } from '../domain/quota';
import { PLANS } from '../domain/plans';

/**
 * What `admin key list` prints of a key: enough to pick the id for rotate, revoke and usage, and
 * to tell keys apart by their last 4 characters. Never the key or its hash (the store holds no key
 * and returns no hash).
 */
export function keyLine(key: KeyListing) {
  return {
    id: key.id,
    env: key.env,
    createdAt: key.createdAt,
    lastUsedAt: key.lastUsedAt,
    tail: key.tail,
    revokedAt: key.revokedAt,
    expiresAt: key.expiresAt,
    replacedBy: key.replacedBy,
  };
}

/** `admin key list`: the account's keys, revoked ones included, oldest first. */
export async function listAccountKeys(store: Pick<AccountStore, 'listKeys'>, account: Account) {
  const keys = await store.listKeys(account.id);
  return { accountId: account.id, email: account.email, keys: keys.map(keyLine) };
}

/** `admin account show`: the account and its use of the current UTC month. */
export async function showAccount(store: Pick<AccountStore, 'monthlyUsage' | 'listKeys'>, account: Account, now: Date) {
  const month = currentMonth(now);
  const [used, keys] = await Promise.all([store.monthlyUsage(account.id, month), store.listKeys(account.id)]);
  return {
    id: account.id,
    email: account.email,
    plan: account.plan,
    createdAt: account.createdAt,
    month,
    used,
    limit: PLANS[account.plan].monthlyQuota,
    keys: keys.length,
  };
}
