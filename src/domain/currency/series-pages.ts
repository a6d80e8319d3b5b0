import { createHash } from 'node:crypto';
import { addDays } from '../calendar/berlin-time';
import { nextBusinessDay } from '../calendar/target-calendar';
import { isCalendarDate } from '../dates';
import { ApiError } from '../errors';
import { nextPublication } from './explain-date';
import { addYears, periodOf, type SeriesGroup } from './periods';

/**
 * A JSON series of days, weeks or months covers at most this many years a call; a longer range
 * continues with the cursor. Quarterly and yearly means are a few entries a year, and CSV and NDJSON
 * are downloads a spreadsheet or a script reads whole (written a chunk at a time): those answer any
 * range, up to the whole history, in one call.
 */
export const MAX_SERIES_YEARS = 10;

/** The last first day whose ten-year window ends within year 9999 (dates are written with four year digits). */
const LAST_WINDOW_START = `${9999 - MAX_SERIES_YEARS}-12-31`;

/** Groups whose whole range is one page, in any format. */
const UNPAGED_GROUPS: ReadonlySet<SeriesGroup> = new Set(['quarter', 'year']);

/** Formats whose whole range is one page, in any group. */
const UNPAGED_FORMATS: ReadonlySet<string> = new Set(['text/csv', 'application/x-ndjson']);

/** Whether a query's answer is one page whatever its range. */
export const isUnpaged = (range: Pick<SeriesRange, 'group' | 'format'>): boolean =>
  UNPAGED_GROUPS.has(range.group) || (range.format !== undefined && UNPAGED_FORMATS.has(range.format));

/** The range one call answers, and the cursor of the next call when the range goes on. */
export interface SeriesPage {
  from: string;
  to: string;
  /** Absent on the last page. */
  nextCursor?: string;
}

/** The query a page belongs to: its range and group, and what a cursor of it is also bound to. */
export interface SeriesRange {
  start: string;
  end: string;
  /** True when the query named no end (the newest publication then ends it): a cursor stays valid as publications arrive. */
  openEnd?: boolean;
  group: SeriesGroup;
  /** The base currency (EUR when absent). */
  base?: string;
  /** The currencies asked for, in order (every currency quoted when absent). */
  symbols?: readonly string[] | undefined;
  /** The media type the page is written in (JSON when absent). */
  format?: string;
  /** `decimals` and `rounding` when rates are rounded ("4:HALF_UP"); absent when unrounded. */
  rounded?: string | undefined;
  /** A source other than the ECB (absent for the ECB, whose cursors name none). */
  source?: string | undefined;
}

/**
 * The page of `range` that starts at `from` (the range's start on the first call): at most
 * MAX_SERIES_YEARS years, cut at the end of a whole period so that no week, month or year is
 * split between two pages (and so between two means). The next page starts the day after.
 */
export function pageOf(range: SeriesRange, from: string = range.start): SeriesPage {
  // A window that would pass the last day a date can name holds the rest of any range.
  if (from > LAST_WINDOW_START || isUnpaged(range)) return { from, to: range.end };
  const limit = addDays(addYears(from, MAX_SERIES_YEARS), -1);
  if (range.end <= limit) return { from, to: range.end };
  const period = periodOf(limit, range.group);
  // A window of ten years always holds a whole period, so `to` never falls before `from`.
  const to = period.end === limit ? limit : addDays(period.start, -1);
  return { from, to, nextCursor: encodeCursor(range, addDays(to, 1)) };
}

/**
 * Whether the answer to a page can no longer change (an ECB correction of a past day aside). The
 * page's own end counts, not the day it is clipped to (a range reaching into the future gains
 * tomorrow's publication), and a next cursor that is still to appear (`more` false) would change it
 * as well. The first publication that may still join is the next expected one, or, while the rates
 * held are behind (a refresh failing for days), the business day after the newest held: every
 * publication since then is still to arrive.
 */
export function isPageComplete(page: SeriesPage, more: boolean, newest: string, now: Date): boolean {
  const expected = nextPublication(newest, now).date;
  const afterNewest = nextBusinessDay(newest);
  const open = afterNewest < expected ? afterNewest : expected;
  return page.to < open && (page.nextCursor === undefined || more);
}

/**
 * A cursor names the next page's first day and a digest of the query it continues (start, end,
 * group, base, symbols and format), so a cursor sent with any other query is refused instead of
 * answering a page of something else. It is opaque to callers (base64url) and stateless (every
 * instance computes the same digest); it carries no secret: a hand-made one can only name another
 * first day of the same query, which is checked like any input (a period's first day inside the
 * range), and answers what a request starting there would.
 */
export function encodeCursor(range: SeriesRange, from: string): string {
  return Buffer.from(`2|${from}|${queryDigest(range)}`, 'utf8').toString('base64url');
}

/** 128 bits of SHA-256 over the query's canonical form: the symbols upper-cased as parsed, in their order. */
function queryDigest(range: SeriesRange): string {
  const parts: unknown[] = [
    range.start,
    range.openEnd ? null : range.end,
    range.group,
    range.base ?? 'EUR',
    range.symbols ?? null,
    range.format ?? 'application/json',
  ];
  // Rounding joins the digest only when asked for: an unrounded query's cursor does not depend on it.
  if (range.rounded !== undefined) parts.push(range.rounded);
  // So does a source other than the ECB: an ECB cursor is the same as before sources were asked for.
  if (range.source !== undefined) parts.push({ source: range.source });
  const canonical = JSON.stringify(parts);
  return createHash('sha256').update(canonical).digest().subarray(0, 16).toString('base64url');
}

const CURSOR_SHAPE = /^[A-Za-z0-9_-]{1,120}$/;

/**
 * The first day of the page a cursor names; INVALID_REQUEST (param `cursor`) for anything that is
 * not a cursor, for a cursor of another query, and for a first day the query cannot have given.
 */
export function decodeCursor(cursor: unknown, range: SeriesRange): string {
  const bad = () =>
    new ApiError('INVALID_REQUEST', 'cursor is not a cursor of this series; repeat the query without it to start again.', {
      param: 'cursor',
    });
  if (typeof cursor !== 'string' || !CURSOR_SHAPE.test(cursor)) throw bad();
  const [version, from = '', digest, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (version !== '2' || digest === undefined || rest.length > 0) throw bad();
  if (digest !== queryDigest(range)) {
    throw new ApiError(
      'INVALID_REQUEST',
      'cursor continues another query: send it with the same start, end, group, base, symbols, decimals, rounding and format (Accept) as the request that gave it, or repeat this query without cursor.',
      { param: 'cursor' },
    );
  }
  // Only a page boundary: the first day of a period, inside the range.
  if (!isCalendarDate(from) || from <= range.start || from > range.end || periodOf(from, range.group).start !== from) throw bad();
  return from;
}
