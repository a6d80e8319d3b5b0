import type { Publication } from '../ecb';
import { changeBetween, type FigureChange, type FigurePrint, type Fraction, type SeriesPoint } from './period-change';
import { asSeriesDay, type SeriesDay, type SeriesRequest } from './series-day';

/**
 * How a series prints its figures: without `decimals`, a publisher's own text where its point has
 * one (the ECB's for base EUR, a source's against its own base), else each rounded once.
 */
export function figurePrint({ decimals, rounding }: Pick<SeriesRequest, 'base' | 'decimals' | 'rounding'>): FigurePrint {
  return { published: decimals === undefined, decimals, rounding };
}

/** A point whose value is a fraction (a cross rate): what a mean adds up as well. */
export interface FractionPoint extends SeriesPoint {
  readonly value: Fraction;
}

/**
 * The figure of `code` against the base on a day, or undefined when it does not quote both. Where
 * the publisher prints the figure against that base (the ECB's against EUR) it keeps its text.
 */
export function publicationPoint(day: SeriesDay, code: string, base: string): FractionPoint | undefined {
  const cross = day.cross(code, base);
  if (!cross) return undefined;
  const [num, den] = cross;
  return { date: day.date, value: { num, den }, text: day.text(code, base) };
}

/** The first (or, with `fromEnd`, the last) figure of `code` among days that quote it and the base. */
function endPoint(days: readonly SeriesDay[], code: string, base: string, fromEnd: boolean): SeriesPoint | undefined {
  const n = days.length;
  for (let i = 0; i < n; i++) {
    const point = publicationPoint(days[fromEnd ? n - 1 - i : i]!, code, base);
    if (point) return point;
  }
  return undefined;
}

/**
 * The change of each currency between the two ends of a series (`publications` oldest first,
 * already limited to the range): from its first figure to its last, each on the first and last
 * publications that quote it (a currency no longer quoted ends on its last day). What
 * exchangerate.host and Fixer call the fluctuation. A currency quoted on none is absent.
 */
export function seriesChange(publications: readonly (Publication | SeriesDay)[], request: SeriesRequest): Record<string, FigureChange> {
  const print = figurePrint(request);
  const days = publications.map(asSeriesDay);
  const changes: Record<string, FigureChange> = {};
  for (const code of request.codes) {
    const first = endPoint(days, code, request.base, false);
    const last = first && endPoint(days, code, request.base, true);
    if (first && last) changes[code] = changeBetween(first, last, print);
  }
  return changes;
}
