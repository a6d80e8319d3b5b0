import { addDays, berlinDate, berlinInstant, weekday } from '../calendar/berlin-time';
import { isDue, nextPublicationTime } from '../calendar/ecb-schedule';
import { isTargetBusinessDay } from '../calendar/target-calendar';

/**
 * Why a publication of an earlier day answers for the day asked: the ECB publishes nothing at
 * weekends and on TARGET holidays; a business day after the newest publication is not published
 * yet (before 16:00, or late); any other business day without a publication is the ECB's own gap.
 */
export type CarryReason = 'weekend' | 'holiday' | 'not-yet-published' | 'no-publication';

/** What a date resolved to: the day asked for, the publication used, and whether it is an earlier day's. */
export interface DateResolution {
  requested: string;
  publication: string;
  carriedForward: boolean;
  /** Present only when carried forward. */
  reason?: CarryReason;
}

/**
 * The resolution of `requested` to `publication` (the latest publication on or before it, found by
 * the caller from the stored dates); `newest` is the newest publication held. The reason is cheap
 * to know from the TARGET calendar, which is why it is only an explanation: the publication used
 * always comes from the stored dates.
 */
export function explainDate(requested: string, publication: string, newest: string): DateResolution {
  if (publication === requested) return { requested, publication, carriedForward: false };
  return { requested, publication, carriedForward: true, reason: carryReason(requested, newest) };
}

export function carryReason(requested: string, newest: string): CarryReason {
  const day = weekday(requested);
  if (day === 0 || day === 6) return 'weekend';
  if (!isTargetBusinessDay(requested)) return 'holiday';
  return requested > newest ? 'not-yet-published' : 'no-publication';
}

/** The latest routes' resolution: today in Berlin, answered by the newest publication held. */
export function explainLatest(newest: string, now: Date): DateResolution {
  const today = berlinDate(now);
  // A clock behind the data (newest after today) carries nothing forward.
  return newest >= today ? { requested: today, publication: newest, carriedForward: false } : explainDate(today, newest, newest);
}

/** When the next publication is expected, and whether it is already overdue. */
export interface NextPublication {
  /** The business day it belongs to (YYYY-MM-DD). */
  date: string;
  /** 16:00 Europe/Berlin on that day, as an ISO 8601 instant (UTC). */
  expectedAt: string;
  /** True when a publication already due (its 16:00 has passed) is not held yet: the rates are behind. */
  overdue: boolean;
}

/**
 * The next publication: 16:00 Berlin on the next TARGET business day after `now`, always a moment
 * to come (what a client schedules its next fetch by). `overdue` says whether the rates held are
 * already behind: a publication whose 16:00 has passed is not held (a refresh failing, or late).
 */
export function nextPublication(newest: string | undefined, now: Date): NextPublication {
  const at = nextPublicationTime(now);
  return { date: berlinDate(at), expectedAt: at.toISOString(), overdue: isDue(newest, now) };
}

/** What the latest listings say of their date: how today resolved, and the next publication. */
export interface LatestExplanation {
  resolved: DateResolution;
  nextPublication: NextPublication;
}

/**
 * explainLatest and nextPublication for the request path (the public latest route asks on every
 * answer), the Intl work done once per period: nothing in them changes until Berlin's next
 * midnight (today) or the next 16:00 on a business day (due or not, and which publication is
 * expected), or until the newest publication held changes.
 */
export function memoizedLatestExplanation(): (newest: string, now: Date) => LatestExplanation {
  let memo: { newest: string; fromMs: number; untilMs: number; value: LatestExplanation } | undefined;
  return (newest, now) => {
    const t = now.getTime();
    if (!memo || memo.newest !== newest || t < memo.fromMs || t >= memo.untilMs) {
      const midnight = berlinInstant(addDays(berlinDate(now), 1), 0).getTime();
      const untilMs = Math.min(midnight, nextPublicationTime(now).getTime());
      memo = { newest, fromMs: t, untilMs, value: { resolved: explainLatest(newest, now), nextPublication: nextPublication(newest, now) } };
    }
    return memo.value;
  };
}
