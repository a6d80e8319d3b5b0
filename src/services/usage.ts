import type { Account, AccountStore, DailyRefusals, DailyUsage } from './account-store';
import { currentDay, currentMonth, lastDays, startOfNextMonth } from '../domain/quota';
import { PLANS } from '../domain/plans';

/** How many UTC days a usage report covers, today included. */
export const USAGE_DAYS = 31;

/** An account's usage as its owner reads it: this month's quota and the last USAGE_DAYS days. */
export interface UsageReport {
  quota: {
    limit: number;
    used: number;
    remaining: number;
    /** When the quota starts again: 00:00 UTC on the 1st of next month (ISO 8601). */
    reset: string;
  };
  /** One entry per UTC day, oldest first, today last; days without usage count zeros. */
  days: DailyUsage[];
}

/** Reads the account's report: its month's usage and its days, as of `now`. */
export async function usageReport(store: Pick<AccountStore, 'monthlyUsage' | 'dailyUsage'>, account: Account, now: Date): Promise<UsageReport> {
  const days = lastDays(now, USAGE_DAYS);
  const [used, recorded] = await Promise.all([store.monthlyUsage(account.id, currentMonth(now)), store.dailyUsage(account.id, days[0]!, days.at(-1)!)]);
  const byDay = new Map(recorded.map((row) => [row.day, row]));
  const limit = PLANS[account.plan].monthlyQuota;
  return {
    quota: { limit, used, remaining: Math.max(0, limit - used), reset: startOfNextMonth(now).toISOString() },
    days: days.map((day) => byDay.get(day) ?? { day, delivered: 0, refusedQuota: 0, refusedRate: 0 }),
  };
}

export interface RefusalRecorder {
  /** Counts a refusal on the account's current UTC day: a Map update on the request path, never a database write. */
  refused(accountId: string, reason: 'quota' | 'rate', count?: number): void;
  /** Writes what is pending now (tests, shutdown). */
  flush(): Promise<void>;
}

/**
 * Refusals (quota, rate limit) per account per day without a write per refused request: they are
 * summed in memory and written in one transaction on a later turn of the event loop (setImmediate),
 * off the request path; a flood of refusals costs one write per turn. A write that fails is
 * reported to `onError` and its counts are lost (they are statistics; no answer depends on them).
 */
export function createRefusalRecorder(store: Pick<AccountStore, 'recordRefusals'>, clock: () => Date, onError: (error: unknown) => void): RefusalRecorder {
  let pending = new Map<string, DailyRefusals>();

  const flush = async () => {
    if (pending.size === 0) return;
    const refusals = [...pending.values()];
    pending = new Map();
    try {
      await store.recordRefusals(refusals);
    } catch (error) {
      onError(error);
    }
  };

  return {
    refused(accountId, reason, count = 1) {
      const day = currentDay(clock());
      const name = `${accountId} ${day}`;
      if (pending.size === 0) setImmediate(() => void flush());
      const entry = pending.get(name) ?? { accountId, day, quota: 0, rate: 0 };
      entry[reason] += count;
      pending.set(name, entry);
    },
    flush,
  };
}
