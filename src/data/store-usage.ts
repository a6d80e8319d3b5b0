import { sql } from 'kysely';
import { ApiError } from '../domain/errors';
import { isQuotaMonth, isUsageDay } from '../domain/quota';
import type { AccountStore } from '../services/account-store';
import type { StoreContext, Trx } from './store-tables';
import { quotaEvents, recordEventIn } from './store-webhooks';

type UsageQueries = Pick<AccountStore, 'monthlyUsage' | 'consumeQuota' | 'consumeQuotaUpTo' | 'recordRefusals' | 'dailyUsage'>;

/** The monthly quota (its all-or-nothing and up-to charges) and the per-day usage counts. */
export function usageQueries(store: StoreContext): UsageQueries {
  const { db, dialect } = store;
  return {
    async monthlyUsage(accountId, month) {
      return usageOf(store, db, accountId, month);
    },
    async consumeQuota(accountId, month, limit, amount = 1) {
      checkArguments(month, amount);
      if (!Number.isSafeInteger(limit) || limit < 0)
        throw new TypeError(`consumeQuota: limit must be an integer >= 0, got ${String(limit)}`);
      let used: number | undefined;
      try {
        used = await consume(store, accountId, month, amount, limit);
      } catch (error) {
        throw quotaNotFound(store, error, accountId);
      }
      if (used !== undefined) {
        await recordQuotaEvents(store, accountId, month, limit, used - amount, used);
        return { allowed: true, used };
      }
      // Refused: the read below only reports the state; it decides nothing, so it may be stale.
      return { allowed: false, used: await usageOf(store, db, accountId, month) };
    },
    async consumeQuotaUpTo(accountId, month, limit, wanted, _chargeId, _keysRevision, day) {
      checkArguments(month, wanted);
      if (!Number.isSafeInteger(limit) || limit < 0)
        throw new TypeError(`consumeQuotaUpTo: limit must be an integer >= 0, got ${String(limit)}`);
      if (day !== undefined && !(isUsageDay(day) && day.startsWith(month)))
        throw new TypeError(`consumeQuotaUpTo: day must be YYYY-MM-DD within ${month}, got ${JSON.stringify(day)}`);
      try {
        // The usual case, everything fits: one conditional statement. Only a turn that asks for more
        // than is left pays for the transaction that grants part of it. A day to count on also goes
        // through the transaction, so the day and the month are written together or not at all.
        if (day === undefined) {
          const all = await consume(store, accountId, month, wanted, limit);
          if (all !== undefined) {
            await recordQuotaEvents(store, accountId, month, limit, all - wanted, all);
            return { granted: wanted, used: all };
          }
        }
        return await grantWhatIsLeft(store, accountId, month, limit, wanted, day);
      } catch (error) {
        throw quotaNotFound(store, error, accountId);
      }
    },
    async recordRefusals(refusals) {
      if (refusals.length === 0) return;
      await dialect.writeTransaction(db, async (trx) => {
        for (const { accountId, day, quota, rate } of refusals)
          await addToDay(trx, accountId, day, { refused_quota: quota, refused_rate: rate });
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
      return rows.map((row) => ({
        day: row.day,
        delivered: Number(row.delivered),
        refusedQuota: Number(row.refused_quota),
        refusedRate: Number(row.refused_rate),
      }));
    },
  };
}

/** Grants what the month still allows of `wanted` (and counts it on `day`, when given) in one write transaction. */
function grantWhatIsLeft(
  store: StoreContext,
  accountId: string,
  month: string,
  limit: number,
  wanted: number,
  day: string | undefined,
): Promise<{ granted: number; used: number }> {
  return store.dialect.writeTransaction(store.db, async (trx) => {
    // Make sure the month's row exists (a first request may ask for more than the whole quota),
    // then lock it: on PostgreSQL a concurrent grant waits here until this one commits.
    await trx
      .insertInto('usage')
      .values({ account_id: accountId, month, used: 0 })
      .onConflict((oc) => oc.doNothing())
      .execute();
    const before = await usageOf(store, trx, accountId, month, true);
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
    const used = Number(row.used);
    for (const event of quotaEvents(accountId, month, limit, before, used)) await recordEventIn(store, trx, event, store.now());
    return { granted, used };
  });
}

/**
 * The quota events of an all-or-nothing charge, written right after its one statement (it has no
 * transaction to join; the request path charges through grantWhatIsLeft or the stores' own charges,
 * which write them in the charge's transaction).
 */
async function recordQuotaEvents(
  store: StoreContext,
  accountId: string,
  month: string,
  limit: number,
  before: number,
  after: number,
): Promise<void> {
  const events = quotaEvents(accountId, month, limit, before, after);
  if (events.length === 0) return;
  await store.dialect.writeTransaction(store.db, async (trx) => {
    for (const event of events) await recordEventIn(store, trx, event, store.now());
  });
}

const usageOf = async (store: StoreContext, q: Trx, accountId: string, month: string, lock = false) =>
  Number(
    (
      await q
        .selectFrom('usage')
        .select('used')
        .where('account_id', '=', accountId)
        .where('month', '=', month)
        .$if(lock && store.dialect.forUpdate, (b) => b.forUpdate())
        .executeTakeFirst()
    )?.used ?? 0,
  );

/**
 * The conditional upsert: counts `amount` only when the month stays within `limit`, as one
 * statement (atomic on both databases, whatever other processes do). The INSERT branch is
 * guarded too, so a first request bigger than the whole quota is refused rather than inserted.
 * Returns the usage after the call, or undefined when refused.
 */
const consume = async (
  { db }: StoreContext,
  accountId: string,
  month: string,
  amount: number,
  limit: number,
): Promise<number | undefined> => {
  const row = await db
    .insertInto('usage')
    .columns(['account_id', 'month', 'used'])
    .expression(
      db
        .selectNoFrom([
          sql<string>`${accountId}`.as('account_id'),
          sql<string>`${month}`.as('month'),
          sql<number>`cast(${amount} as bigint)`.as('used'),
        ])
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
    .values({
      account_id: accountId,
      day,
      delivered: counts.delivered ?? 0,
      refused_quota: counts.refused_quota ?? 0,
      refused_rate: counts.refused_rate ?? 0,
    })
    .onConflict((oc) =>
      oc.columns(['account_id', 'day']).doUpdateSet({
        delivered: (eb) => eb(eb.ref('usage_days.delivered'), '+', eb.ref('excluded.delivered')),
        refused_quota: (eb) => eb(eb.ref('usage_days.refused_quota'), '+', eb.ref('excluded.refused_quota')),
        refused_rate: (eb) => eb(eb.ref('usage_days.refused_rate'), '+', eb.ref('excluded.refused_rate')),
      }),
    )
    .execute();

const quotaNotFound = ({ dialect }: StoreContext, error: unknown, accountId: string): unknown =>
  dialect.isForeignKeyViolation(error) ? new ApiError('NOT_FOUND', `No account has the id '${accountId}'.`) : error;

function checkArguments(month: string, amount: number): void {
  if (!isQuotaMonth(month)) throw new TypeError(`quota month must be YYYY-MM, got ${JSON.stringify(month)}`);
  if (!Number.isSafeInteger(amount) || amount < 1) throw new TypeError(`quota amount must be an integer >= 1, got ${String(amount)}`);
}
