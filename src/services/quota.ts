import { randomUUID } from 'node:crypto';
import type { Account, AccountStore } from './account-store';
import { createChargeCancellations, type ChargeCancellations } from './charge-cancellations';
import { ApiError } from '../domain/errors';
import { currentDay, currentMonth, quotaExceeded, type QuotaState } from '../domain/quota';
import { PLANS } from '../domain/plans';

/** A charge's outcome: `stale` when nothing was charged because the keys revision had moved (then `state` means nothing). */
export interface Charge {
  granted: number;
  state: QuotaState;
  stale?: true;
}

export interface QuotaMeter {
  /**
   * Counts up to `wanted` conversions, atomically (fewer when the quota runs out); returns how many
   * were granted and the state after. With `keysRevision` (the keys revision the caller's key was
   * found active in, not read since: RequestContext), a store that reads the revision in the
   * charge's statement (AccountStore.chargesReadKeysRevision) charges nothing if it has moved and
   * the answer says `stale`: the caller checks its key again and charges anew.
   */
  chargeUpTo(account: Account, wanted: number, keysRevision?: number): Promise<Charge>;
  /** The account's quota this month, counting nothing (for the headers of calls that cost none). */
  state(account: Account): Promise<QuotaState>;
  /** QUOTA_EXCEEDED for this account, without counting or reading anything. */
  refusal(account: Account): ApiError;
  /** The cancellations of charges whose outcome stayed unknown (see commit below). */
  readonly cancellations: ChargeCancellations;
}

/**
 * The monthly quota (contract section 6) with group commit: the charges asked for in one event-loop
 * turn are written together, one atomic step per account (the store's consumeQuotaUpTo, which
 * never takes a month past the limit, whatever other processes do, and counts what it grants on the
 * UTC day's delivered conversions in the same step), and each charge resolves only
 * once that step is committed. What one account asked for in the turn is granted in the order it
 * was asked. Callers charge only after a conversion succeeded, so a failure never costs anything;
 * and a charge that fails (its requests are answered with the error) is cancelled by its id, in
 * case it committed after all (a store that can say so: see AccountStore.cancelCharges).
 */
export function createQuotaMeter(
  store: AccountStore,
  clock: () => Date,
  onRefused?: (account: Account, count: number) => void,
  onCancelError?: (error: unknown) => void,
  /** Each keys revision a charge's statement read (the key cache empties itself when it moved). */
  onKeysRevision?: (revision: number) => void,
): QuotaMeter {
  const cancellations = createChargeCancellations(store, onCancelError);
  const commitDeps: CommitDeps = { store, cancellations, onRefused, onKeysRevision };

  /** By account, and by the keys revision checked (requests of one turn almost always share it). */
  let pending = new Map<string, Group>();
  const checksRevision = store.chargesReadKeysRevision === true;

  const flush = () => {
    const groups = pending;
    pending = new Map();
    const now = clock();
    const [month, day] = [currentMonth(now), currentDay(now)];
    for (const group of groups.values()) void commitGroup(commitDeps, group, month, day);
  };

  const chargeUpTo = (account: Account, wanted: number, revision?: number) =>
    new Promise<Charge>((resolve, reject) => {
      if (pending.size === 0) setImmediate(flush);
      // A store that cannot check the revision is never given one: its callers read it themselves.
      const keysRevision = checksRevision ? revision : undefined;
      const name = keysRevision === undefined ? account.id : `${account.id} ${keysRevision}`;
      const group = pending.get(name);
      if (group) {
        group.wanted += wanted;
        group.waiters.push({ wanted, resolve, reject });
      } else {
        pending.set(name, { account, keysRevision, wanted, waiters: [{ wanted, resolve, reject }] });
      }
    });

  return {
    chargeUpTo,
    cancellations,
    refusal: (account) => {
      onRefused?.(account, 1);
      return quotaExceeded(clock(), limitOf(account));
    },
    async state(account) {
      // Only for headers and planning: while the database is known to be away, fail at once rather
      // than spend another deadline on a read the answer can do without.
      if (store.knownUnreachable?.()) throw unavailable();
      return { limit: limitOf(account), used: await store.monthlyUsage(account.id, currentMonth(clock())) };
    },
  };
}

/** One charge asked for in the turn: what it wants, and how to answer it. */
interface Waiter {
  wanted: number;
  resolve(result: Charge): void;
  reject(error: unknown): void;
}

/** The charges of one account (and one keys revision) in the turn, written as one step. */
interface Group {
  account: Account;
  keysRevision: number | undefined;
  wanted: number;
  waiters: Waiter[];
}

interface CommitDeps {
  store: AccountStore;
  cancellations: ChargeCancellations;
  onRefused: ((account: Account, count: number) => void) | undefined;
  onKeysRevision: ((revision: number) => void) | undefined;
}

/**
 * Writes one group's charges in one consumeQuotaUpTo and shares what it granted among the waiters
 * in the order they asked; all of them are answered `stale` when the keys revision has moved, and
 * all rejected (the charge cancelled, where the store can) when the write fails.
 */
async function commitGroup(
  { store, cancellations, onRefused, onKeysRevision }: CommitDeps,
  { account, keysRevision, wanted, waiters }: Group,
  month: string,
  day: string,
): Promise<void> {
  const chargeId = store.cancelCharges ? randomUUID() : undefined;
  try {
    const limit = limitOf(account);
    const {
      granted,
      used,
      keysRevision: current,
    } = await store.consumeQuotaUpTo(account.id, month, limit, wanted, chargeId, keysRevision, day);
    if (current !== undefined) onKeysRevision?.(current);
    if (keysRevision !== undefined && current !== keysRevision) {
      for (const waiter of waiters) waiter.resolve({ granted: 0, state: { limit, used }, stale: true });
      return;
    }
    let left = granted;
    for (const waiter of waiters) {
      const share = Math.min(waiter.wanted, left);
      left -= share;
      if (share < waiter.wanted) onRefused?.(account, waiter.wanted - share);
      waiter.resolve({ granted: share, state: { limit, used } });
    }
  } catch (error) {
    if (chargeId !== undefined) cancellations.cancel(chargeId);
    for (const waiter of waiters) waiter.reject(error);
  }
}

const limitOf = (account: Account) => PLANS[account.plan].monthlyQuota;

/** What a read refused while the database is away answers (the store's own faults say the same). */
function unavailable(): ApiError {
  return new ApiError('SERVICE_UNAVAILABLE', 'The account database is unavailable; try again shortly.', { retryAfterSeconds: 5 });
}
