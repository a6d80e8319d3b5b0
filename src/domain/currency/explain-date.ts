import { addDays, berlinDate, berlinInstant, weekday } from '../calendar/berlin-time';
import {
  memoizedPublicationLag,
  nextPublicationTime,
  publicationLag,
  publicationTime,
  type PublicationLag,
} from '../calendar/ecb-schedule';
import { isTargetBusinessDay } from '../calendar/target-calendar';

/**
 * Why a publication of an earlier day answers for the day asked: the ECB publishes nothing at
 * weekends and on TARGET holidays; a business day after the newest publication is not published
 * yet (before 16:00, or late); any other business day without a publication is the ECB's own gap.
 * `stale` comes first: the rates held are behind the calendar (a publication past its 16:00 plus
 * the grace is missing) and the day asked is on or after the first missing one, so the answer
 * uses an older publication than the ECB has made. `weekly-table` is a weekly publisher's figure
 * standing for its week (NBP's table B), never the ECB's.
 */
export const CARRY_REASONS = ['weekend', 'holiday', 'not-yet-published', 'no-publication', 'stale', 'weekly-table'] as const;
export type CarryReason = (typeof CARRY_REASONS)[number];

/** What a date resolved to: the day asked for, the publication used, and whether it is an earlier day's. */
export interface DateResolution {
  requested: string;
  publication: string;
  carriedForward: boolean;
  /** Present only when carried forward. */
  reason?: CarryReason;
  /** Present only when the reason is `stale`: the publications due and not held. */
  missingPublications?: number;
}

const NOT_BEHIND: PublicationLag = { missing: 0, firstMissing: undefined, stale: false };

/**
 * The resolution of `requested` to `publication` (the latest publication on or before it, found by
 * the caller from the stored dates); `newest` is the newest publication held and `lag` how far it
 * is behind the calendar (publicationLag). The reason is cheap to know from the TARGET calendar,
 * which is why it is only an explanation: the publication used always comes from the stored dates.
 */
export function explainDate(requested: string, publication: string, newest: string, lag: PublicationLag = NOT_BEHIND): DateResolution {
  if (publication === requested) return { requested, publication, carriedForward: false };
  if (lag.stale && lag.firstMissing !== undefined && requested >= lag.firstMissing) {
    return { requested, publication, carriedForward: true, reason: 'stale', missingPublications: lag.missing };
  }
  return { requested, publication, carriedForward: true, reason: carryReason(requested, newest) };
}

export function carryReason(requested: string, newest: string): Exclude<CarryReason, 'stale'> {
  const day = weekday(requested);
  if (day === 0 || day === 6) return 'weekend';
  if (!isTargetBusinessDay(requested)) return 'holiday';
  return requested > newest ? 'not-yet-published' : 'no-publication';
}

/** The latest routes' resolution: today in Berlin, answered by the newest publication held. */
export function explainLatest(newest: string, now: Date, lag: PublicationLag = publicationLag(newest, now)): DateResolution {
  const today = berlinDate(now);
  // A clock behind the data (newest after today) carries nothing forward.
  return newest >= today ? { requested: today, publication: newest, carriedForward: false } : explainDate(today, newest, newest, lag);
}

/** When the next publication is expected, and whether it is already overdue. */
export interface NextPublication {
  /** The business day it belongs to (YYYY-MM-DD). */
  date: string;
  /** 16:00 Europe/Berlin on that day, as an ISO 8601 instant (UTC). */
  expectedAt: string;
  /** True when it is due (its 16:00 has passed) and not held yet: the rates held are behind. */
  overdue: boolean;
  /** Publications due (their 16:00 passed) and not held; 0 when the rates are current. */
  missingPublications: number;
}

/**
 * The next publication the rates held lack. While none is due, the next TARGET business day's,
 * 16:00 Berlin, a moment to come (what a client schedules its next fetch by). While some are due
 * and not held (a refresh failing, or late), the first of them: a moment past, overdue, with the
 * number missing. It is never both to come and overdue.
 */
export function nextPublication(newest: string, now: Date, lag: PublicationLag = publicationLag(newest, now)): NextPublication {
  if (lag.firstMissing !== undefined) {
    const date = lag.firstMissing;
    return { date, expectedAt: publicationTime(date).toISOString(), overdue: true, missingPublications: lag.missing };
  }
  const at = nextPublicationTime(now);
  return { date: berlinDate(at), expectedAt: at.toISOString(), overdue: false, missingPublications: 0 };
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
 * expected), until the lag of the rates held changes (memoizedPublicationLag: a 16:00 plus the
 * grace turns them stale), or until the newest publication held changes.
 */
export function memoizedLatestExplanation(): (newest: string, now: Date) => LatestExplanation {
  const lagOf = memoizedPublicationLag();
  let memo: { newest: string; fromMs: number; untilMs: number; lag: PublicationLag; value: LatestExplanation } | undefined;
  return (newest, now) => {
    const t = now.getTime();
    const lag = lagOf(newest, now);
    if (!memo || memo.newest !== newest || memo.lag !== lag || t < memo.fromMs || t >= memo.untilMs) {
      const midnight = berlinInstant(addDays(berlinDate(now), 1), 0).getTime();
      const untilMs = Math.min(midnight, nextPublicationTime(now).getTime());
      memo = {
        newest,
        fromMs: t,
        untilMs,
        lag,
        value: { resolved: explainLatest(newest, now, lag), nextPublication: nextPublication(newest, now, lag) },
      };
    }
    return memo.value;
  };
}

/** How a date asked for resolved, with the lag of the rates held read once per period (memoizedPublicationLag). */
export function memoizedDateExplainer(): (requested: string, publication: string, newest: string, now: Date) => DateResolution {
  const lagOf = memoizedPublicationLag();
  return (requested, publication, newest, now) => explainDate(requested, publication, newest, lagOf(newest, now));
}
