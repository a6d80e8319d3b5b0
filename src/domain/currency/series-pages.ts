import { addDays } from '../calendar/berlin-time';
import { nextBusinessDay } from '../calendar/target-calendar';
import { isCalendarDate } from '../dates';
import { ApiError } from '../errors';
import { nextPublication } from './explain-date';
import { addYears, periodOf, SERIES_GROUPS, type SeriesGroup } from './periods';

/** A series call covers at most this many years; a longer range continues with the cursor. */
export const MAX_SERIES_YEARS = 10;

/** The range one call answers, and the cursor of the next call when the range goes on. */
export interface SeriesPage {
  from: string;
  to: string;
  /** Absent on the last page. */
  nextCursor?: string;
}

export interface SeriesRange {
  start: string;
  end: string;
  group: SeriesGroup;
}

/**
 * The page of `range` that starts at `from` (the range's start on the first call): at most
 * MAX_SERIES_YEARS years, cut at the end of a whole period so that no week, month or year is
 * split between two pages (and so between two means). The next page starts the day after.
 */
export function pageOf(range: SeriesRange, from: string = range.start): SeriesPage {
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
 * A cursor names the next page's first day and the range it belongs to, so a cursor pasted onto
 * another query is refused instead of answering a page of something else. It is opaque to callers
 * (base64url) but carries no secret: a hand-made one is checked like any input.
 */
export function encodeCursor(range: SeriesRange, from: string): string {
  return Buffer.from(`1|${from}|${range.start}|${range.end}|${range.group}`, 'utf8').toString('base64url');
}

const CURSOR_SHAPE = /^[A-Za-z0-9_-]{1,120}$/;

/** The first day of the page a cursor names; INVALID_REQUEST (param `cursor`) for anything else. */
export function decodeCursor(cursor: unknown, range: SeriesRange): string {
  const bad = () => new ApiError('INVALID_REQUEST', 'cursor is not a cursor of this series; repeat the query without it to start again.', { param: 'cursor' });
  if (typeof cursor !== 'string' || !CURSOR_SHAPE.test(cursor)) throw bad();
  const [version, from = '', start, end, group, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const matches = version === '1' && rest.length === 0 && start === range.start && end === range.end && group === range.group;
  if (!matches || !isCalendarDate(from) || from <= range.start || from > range.end) throw bad();
  // Only a page boundary: the first day of a period.
  if (!(SERIES_GROUPS as readonly string[]).includes(group) || periodOf(from, range.group).start !== from) throw bad();
  return from;
}
