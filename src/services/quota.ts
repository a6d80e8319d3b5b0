import type { Account, AccountStore } from '../data/store';
import { currentMonth, quotaExceeded, type QuotaState } from '../domain/quota';
import { PLANS } from '../domain/plans';

export interface QuotaMeter {
  /** Counts one conversion, atomically; throws QUOTA_EXCEEDED (nothing counted) when the month's quota is used up. */
  charge(account: Account): Promise<QuotaState>;
  /** Counts up to `wanted` conversions in as few atomic steps as possible; returns how many were granted. */
  chargeUpTo(account: Account, wanted: number): Promise<{ granted: number; state: QuotaState }>;
  /** The account's quota this month, counting nothing (for the headers of calls that cost none). */
  state(account: Account): Promise<QuotaState>;
}

/**
 * The monthly quota (contract section 6) over the store's conditional update: concurrent requests
 * can never spend more than the plan allows. Callers charge only after a conversion succeeded,
 * so a failed conversion never costs anything.
 */
export function createQuotaMeter(store: AccountStore, clock: () => Date, onRefused?: (account: Account, count: number) => void): QuotaMeter {
  const limitOf = (account: Account) => PLANS[account.plan].monthlyQuota;

  const chargeUpTo = async (account: Account, wanted: number) => {
    const limit = limitOf(account);
    const month = currentMonth(clock());
    let asked = wanted;
    let used = 0;
    // All or nothing per step; when the whole batch does not fit, ask again for what is left.
    while (asked > 0) {
      const result = await store.consumeQuota(account.id, month, limit, asked);
      used = result.used;
      if (result.allowed) break;
      asked = Math.min(asked, limit - result.used);
    }
    const granted = Math.max(asked, 0);
    if (granted < wanted) onRefused?.(account, wanted - granted);
    return { granted, state: { limit, used } };
  };

  return {
    chargeUpTo,
    async charge(account) {
      const { granted, state } = await chargeUpTo(account, 1);
      if (granted === 0) throw quotaExceeded(clock(), state.limit);
      return state;
    },
    async state(account) {
      return { limit: limitOf(account), used: await store.monthlyUsage(account.id, currentMonth(clock())) };
    },
  };
}
