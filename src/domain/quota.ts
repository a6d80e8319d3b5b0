import { isCalendarDate } from './dates';
import { refusalWithNextStep, type ApiError } from './errors';

/**
 * The monthly quota's calendar (contract section 6): a quota month is a UTC calendar month, so it
 * resets at 00:00 UTC on the 1st whatever the server's time zone. Pure: the clock is an argument.
 */

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** The quota month of an instant: `YYYY-MM` in UTC. */
export function currentMonth(now: Date): string {
  return now.toISOString().slice(0, 7);
}

/** True for a month written `YYYY-MM` (the usage table's key). */
export function isQuotaMonth(text: string): boolean {
  return MONTH.test(text);
}

/** The usage day of an instant: `YYYY-MM-DD` in UTC. */
export function currentDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/** True for a real calendar day written `YYYY-MM-DD` (the daily usage table's key). */
export function isUsageDay(text: string): boolean {
  return isCalendarDate(text);
}

/** The `count` UTC days that end with `now`'s, oldest first (`YYYY-MM-DD`). */
export function lastDays(now: Date, count: number): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: count }, (_, i) => new Date(today - (count - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}

/** 00:00:00.000 UTC on the 1st of the month after `now`'s. */
export function startOfNextMonth(now: Date): Date {
  // Date.UTC rolls month 12 over into January of the next year.
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

/**
 * Whole seconds until the quota resets, rounded up so a client that waits this long is never
 * early; at least 1 (Retry-After 0 would invite an immediate retry). Retry-After of QUOTA_EXCEEDED.
 */
export function secondsToNextMonth(now: Date): number {
  return Math.max(1, Math.ceil((startOfNextMonth(now).getTime() - now.getTime()) / 1000));
}

/** QUOTA_EXCEEDED, to be retried after the seconds to the next UTC month (the edge sends Retry-After). */
export function quotaExceeded(now: Date, limit?: number): ApiError {
  const reset = startOfNextMonth(now).toISOString();
  const what = limit === undefined ? 'The monthly quota' : `The monthly quota of ${groupThousands(limit)} conversions`;
  return refusalWithNextStep('QUOTA_EXCEEDED', `${what} is used up; it resets at ${reset}.`, {
    retryAfterSeconds: secondsToNextMonth(now),
  });
}

/** A whole number as en-US writes it (1,000,000): toLocaleString's digits without Intl's cost on a refusal. */
export function groupThousands(n: number): string {
  return Number.isSafeInteger(n) && n >= 0 ? String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',') : n.toLocaleString('en-US');
}

export interface QuotaState {
  /** Conversions the plan allows per month. */
  limit: number;
  /** Conversions counted this month (after the current request's, when it was counted). */
  used: number;
}
