/**
 * Plans (contract section 6). A plan belongs to an account; all the account's keys share its quota,
 * which resets at 00:00 UTC on the first of each month.
 */
export const PLANS = {
  free: { monthlyQuota: 1000, history: false },
  developer: { monthlyQuota: 100000, history: true },
  business: { monthlyQuota: 2000000, history: true },
} as const;

export type PlanId = keyof typeof PLANS;

export const PLAN_IDS = Object.keys(PLANS) as PlanId[];

export function isPlanId(x: unknown): x is PlanId {
  return typeof x === 'string' && Object.hasOwn(PLANS, x);
}

/** Whether the plan may use `date` (historical rates); `free` may not. */
export function planAllowsHistory(plan: PlanId): boolean {
  return PLANS[plan].history;
}
