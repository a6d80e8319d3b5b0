import { berlinDate, berlinInstant } from './berlin-time';
import { isTargetBusinessDay, nextBusinessDay, previousBusinessDay } from './target-calendar';

/**
 * When the ECB's rates are expected, as pure functions of a clock reading. The ECB publishes
 * around 16:00 Berlin time on TARGET business days; `newest` is the newest publication held.
 */
export interface ScheduleOptions {
  /** How late a publication may be before the data counts as stale. */
  graceMs: number;
  /** Poll period while a due publication has not arrived yet (jittered ±20 %). */
  pollMs: number;
  /** Cache-Control max-age for the latest rates while a due publication is polled for. */
  pollMaxAgeSeconds: number;
}

export const DEFAULT_SCHEDULE: ScheduleOptions = { graceMs: 2 * 3_600_000, pollMs: 5 * 60_000, pollMaxAgeSeconds: 60 };

/** Never sleep longer than this: a clock change or a missed wake-up is corrected within the hour. */
const MAX_SLEEP_MS = 3_600_000;
/** Spreads the first poll after 16:00 of many instances over half a minute. */
const WAKE_JITTER_MS = 30_000;

/** The moment the publication of `date` is expected: 16:00 Berlin time. */
export function publicationTime(date: string): Date {
  return berlinInstant(date, 16);
}

/** The most recent business day whose 16:00 plus `lagMs` has passed at `now`. */
export function latestExpectedPublication(now: Date, lagMs = 0): string {
  let day = berlinDate(now);
  if (!isTargetBusinessDay(day)) day = previousBusinessDay(day);
  while (publicationTime(day).getTime() + lagMs > now.getTime()) day = previousBusinessDay(day);
  return day;
}

/** The next 16:00 Berlin on a business day strictly after `now`. */
export function nextPublicationTime(now: Date): Date {
  let day = berlinDate(now);
  if (!isTargetBusinessDay(day)) day = nextBusinessDay(day);
  while (publicationTime(day).getTime() <= now.getTime()) day = nextBusinessDay(day);
  return publicationTime(day);
}

/** A publication is due (16:00 has passed) and not held yet: poll for it. Always true with nothing held. */
export function isDue(newest: string | undefined, now: Date): boolean {
  return newest === undefined || latestExpectedPublication(now) > newest;
}

/** Stale: the publication expected by now (16:00 + grace) is newer than the newest held, or nothing is held. */
export function isStale(newest: string | undefined, now: Date, { graceMs }: ScheduleOptions = DEFAULT_SCHEDULE): boolean {
  return newest === undefined || latestExpectedPublication(now, graceMs) > newest;
}

/** How far the rates held are behind the ECB calendar at a moment. */
export interface PublicationLag {
  /** Business days after the newest held whose 16:00 has passed: publications due and not held. */
  missing: number;
  /** The first of them (the business day after the newest held); undefined when none is missing. */
  firstMissing: string | undefined;
  /** isStale: the first missing is past its 16:00 plus the grace (what health reports). */
  stale: boolean;
}

/** The publications the calendar expected by `now` after `newest`, the newest held. */
export function publicationLag(newest: string, now: Date, options: ScheduleOptions = DEFAULT_SCHEDULE): PublicationLag {
  const expected = latestExpectedPublication(now);
  const firstMissing = nextBusinessDay(newest);
  if (firstMissing > expected) return { missing: 0, firstMissing: undefined, stale: false };
  let missing = 0;
  for (let day = firstMissing; day <= expected; day = nextBusinessDay(day)) missing += 1;
  return { missing, firstMissing, stale: isStale(newest, now, options) };
}

/**
 * publicationLag for the request path, recomputed only when the newest held changes, a 16:00 passes
 * (one more is due) or a 16:00 plus the grace passes (the rates turn stale).
 */
export function memoizedPublicationLag(options: ScheduleOptions = DEFAULT_SCHEDULE): (newest: string, now: Date) => PublicationLag {
  let memo: { newest: string; fromMs: number; untilMs: number; lag: PublicationLag } | undefined;
  return (newest, now) => {
    const t = now.getTime();
    if (!memo || memo.newest !== newest || t < memo.fromMs || t >= memo.untilMs) {
      const staleAt = nextPublicationTime(new Date(t - options.graceMs)).getTime() + options.graceMs;
      memo = {
        newest,
        fromMs: t,
        untilMs: Math.min(nextPublicationTime(now).getTime(), staleAt),
        lag: publicationLag(newest, now, options),
      };
    }
    return memo.lag;
  };
}

/**
 * Seconds the latest rates may be cached: a short time while a due publication is polled for,
 * else until the next expected publication, at most an hour; never negative.
 */
export function latestMaxAgeSeconds(newest: string | undefined, now: Date, options: ScheduleOptions = DEFAULT_SCHEDULE): number {
  const untilNext = Math.floor((nextPublicationTime(now).getTime() - now.getTime()) / 1000);
  const cap = isDue(newest, now) ? options.pollMaxAgeSeconds : 3600;
  return Math.max(0, Math.min(cap, untilNext));
}

/**
 * latestMaxAgeSeconds for the request path: it is asked on every response, so the Intl work is
 * done once per publication period. Nothing in it changes between two publication times except
 * the seconds left, so a result stays valid from when it was computed until the next one.
 */
export function memoizedLatestMaxAge(options: ScheduleOptions = DEFAULT_SCHEDULE): (newest: string | undefined, now: Date) => number {
  let memo: { newest: string | undefined; fromMs: number; nextMs: number; due: boolean } | undefined;
  return (newest, now) => {
    const t = now.getTime();
    if (!memo || memo.newest !== newest || t < memo.fromMs || t >= memo.nextMs) {
      memo = { newest, fromMs: t, nextMs: nextPublicationTime(now).getTime(), due: isDue(newest, now) };
    }
    const cap = memo.due ? options.pollMaxAgeSeconds : 3600;
    return Math.max(0, Math.min(cap, Math.floor((memo.nextMs - t) / 1000)));
  };
}

/**
 * How long to wait before the next refresh check: a jittered poll period while a publication is
 * due, else until just after the next expected publication (an hour at most, then re-planned).
 * `random` is in [0, 1).
 */
export function nextCheckDelayMs(
  newest: string | undefined,
  now: Date,
  random: number,
  options: ScheduleOptions = DEFAULT_SCHEDULE,
): number {
  if (isDue(newest, now)) return Math.round(options.pollMs * (0.8 + 0.4 * random));
  const untilNext = nextPublicationTime(now).getTime() - now.getTime();
  return Math.min(MAX_SLEEP_MS, untilNext) + Math.round(random * WAKE_JITTER_MS);
}
