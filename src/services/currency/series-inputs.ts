import { addDays } from '../../domain/calendar/berlin-time';
import { parseBase, parseGroup, parseRange, parseSymbolList } from '../../domain/currency/query';
import { decodeCursor, pageOf, type SeriesRange } from '../../domain/currency/series-pages';
import { parseDecimals, parseRounding, type RoundingMode } from '../../domain/decimal';
import { ApiError } from '../../domain/errors';
import type { SourceId } from '../../domain/sources/types';
import type { SeriesQuery } from './series-shapes';

/** A series query's inputs, checked in the contract's order, with the range its cursor is bound to. */
export interface SeriesInputs {
  start: string;
  endAsked: string | undefined;
  base: string;
  asked: string[] | undefined;
  decimals: number | undefined;
  rounding: RoundingMode;
  range: SeriesRange;
  cursor: string | undefined;
}

/** The inputs of one series query; `defaultBase` answers an absent `base`, `source` (not the ECB) binds the cursor to it. */
export function seriesInputs(query: SeriesQuery, defaultBase: string, source?: SourceId): SeriesInputs {
  const { start, end: endAsked } = parseRange(query);
  const base = query.base === undefined || query.base === null ? defaultBase : parseBase(query.base);
  const asked = parseSymbolList(query.symbols);
  const group = parseGroup(query.group);
  const decimals = parseDecimals(query.decimals);
  const rounding = parseRounding(query.rounding);
  const rounded = decimals === undefined ? undefined : `${decimals}:${rounding}`;
  // Without `end`, the cursor's digest names no end (openEnd), and the newest publication ends the range.
  const range: SeriesRange = {
    start,
    end: endAsked ?? start,
    openEnd: endAsked === undefined,
    group,
    base,
    symbols: asked,
    format: query.format,
    rounded,
    ...(source === undefined ? {} : { source }),
  };
  const cursor = query.cursor === undefined || query.cursor === null ? undefined : decodeCursor(query.cursor, range);
  return { start, endAsked, base, asked, decimals, rounding, range, cursor };
}

/**
 * The page of `range` from `from`, cut at today: RATE_NOT_FOUND for a page that starts after today
 * or holds no day; `whose` names the rates in that refusal ("ECB", "nbp").
 */
export function pageWindow(range: SeriesRange, from: string, cursor: string | undefined, today: string, whose: string) {
  if (from > today)
    throw new ApiError('RATE_NOT_FOUND', `There are no rates from ${from} yet: it is after today (${today}, Europe/Berlin).`, {
      param: cursor === undefined ? 'start' : 'cursor',
    });
  const page = pageOf(range, from);
  const to = page.to < today ? page.to : today;
  if (from > to)
    throw new ApiError('RATE_NOT_FOUND', `There are no ${whose} rates from ${range.start} to ${range.end}.`, { param: 'start' });
  const more = page.nextCursor !== undefined && addDays(page.to, 1) <= today;
  return { page, to, more, nextCursor: more ? page.nextCursor! : null };
}
