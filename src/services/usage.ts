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
export async function usageReport(
  store: Pick<AccountStore, 'monthlyUsage' | 'dailyUsage'>,
  account: Account,
  now: Date,
): Promise<UsageReport> {
  const days = lastDays(now, USAGE_DAYS);
  const [used, recorded] = await Promise.all([
    store.monthlyUsage(account.id, currentMonth(now)),
    store.dailyUsage(account.id, days[0]!, days.at(-1)!),
  ]);
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
  /** Writes what is pending now, after any write under way (tests, shutdown). */
  flush(): Promise<void>;
}

/** Account-days kept for a later write while the database is away; past it, new ones are dropped. */
const MAX_PENDING = 10_000;
/** How long after a failed write the counts it held are tried again. */
const RETRY_MS = 1000;

/**
 * Refusals (quota, rate limit) per account per day without a write per refused request: they are
 * summed in memory and written in one transaction on a later turn of the event loop (setImmediate),
 * off the request path; a flood of refusals costs one write per turn. Writes run one at a time; a
 * write that fails is reported to `onError` and its counts are merged back and tried again a second
 * later, up to MAX_PENDING account-days (they are statistics: no answer waits for them).
 */
export function createRefusalRecorder(
  store: Pick<AccountStore, 'recordRefusals'>,
  clock: () => Date,
  onError: (error: unknown) => void,
): RefusalRecorder {
  let pending = new Map<string, DailyRefusals>();
  let scheduled = false;
  let writing: Promise<void> = Promise.resolve();

  const add = ({ accountId, day, quota, rate }: DailyRefusals) => {
    const name = `${accountId} ${day}`;
    const entry = pending.get(name);
    if (entry) {
      entry.quota += quota;
      entry.rate += rate;
    } else if (pending.size < MAX_PENDING) {
      pending.set(name, { accountId, day, quota, rate });
    }
  };

  const schedule = (delay: number) => {
    if (scheduled) return;
    scheduled = true;
    const run = () => void write();
    if (delay === 0) setImmediate(run);
    else setTimeout(run, delay).unref();
  };

  const write = (): Promise<void> => {
    scheduled = false;
    if (pending.size === 0) return writing;
    const refusals = [...pending.values()];
    pending = new Map();
    writing = writing.then(() =>
      store.recordRefusals(refusals).catch((error: unknown) => {
        onError(error);
        for (const refusal of refusals) add(refusal);
        schedule(RETRY_MS);
      }),
    );
    return writing;
  };

  return {
    refused(accountId, reason, count = 1) {
      add({ accountId, day: currentDay(clock()), quota: reason === 'quota' ? count : 0, rate: reason === 'rate' ? count : 0 });
      schedule(0);
    },
    flush: write,
  };
}
