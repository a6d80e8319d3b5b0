import type { Publication } from '../ecb';
import { unitsPerBase, type SourceHistory } from '../sources/history';
import type { SourceId } from '../sources/types';
import type { RoundingMode } from '../decimal';
import { crossFraction, publishedRate, type ScaledRate } from './cross';
import type { SeriesGroup } from './periods';

/**
 * One day of a series, whoever published it: what the series folds (series.ts) reads of a day.
 * An ECB publication is one (ecbDay); so is a day of another source's tables (sourceDay).
 */
export interface SeriesDay {
  readonly date: string;
  /** Whether the day quotes `code` at all (a day that does not quote the base is skipped). */
  quotes(code: string): boolean;
  /** Units of `code` per one unit of `base` on the day, exactly, as one unreduced fraction; undefined when it does not quote both. */
  cross(code: string, base: string): [bigint, bigint] | undefined;
  /** The publisher's own text of `code` against `base` ("1.0820" keeps its zero), when the day prints one; else undefined. */
  text(code: string, base: string): string | undefined;
  /** The codes the day quotes, in the publisher's order (a series' default columns). */
  codes(): Iterable<string>;
}

/** An ECB publication as a series day: cross rates of its strings; its own text against EUR. */
export function ecbDay(pub: Publication): SeriesDay {
  let lastBase: string | undefined;
  let baseRate: ScaledRate | undefined;
  return {
    date: pub.date,
    quotes: (code) => publishedRate(pub, code) !== undefined,
    cross(code, base) {
      if (base !== lastBase) [lastBase, baseRate] = [base, publishedRate(pub, base)];
      const rate = publishedRate(pub, code);
      return rate && baseRate ? crossFraction(rate, baseRate) : undefined;
    },
    text: (code, base) => (base === 'EUR' ? (code === 'EUR' ? '1' : pub.rates[code]) : undefined),
    codes: () => ['EUR', ...Object.keys(pub.rates)],
  };
}

/** A day of a series: an ECB publication is read as one. */
export const asSeriesDay = (day: Publication | SeriesDay): SeriesDay => ('rates' in day ? ecbDay(day) : day);

/**
 * A day of one source other than the ECB: each figure the one in effect that day (history.pair,
 * with its tables' carry limits), a symbol against a base being unitsPerBase(symbol) ÷
 * unitsPerBase(base) of the same source and table base. The figure's own text is the day's when
 * the base is the figure's own base and it is published as units per one unit of the base.
 */
export function sourceDay(history: SourceHistory, source: SourceId, date: string, codes: readonly string[]): SeriesDay {
  return {
    date,
    quotes: (code) => history.figures(source, code, date).length > 0,
    cross(code, base) {
      const pair = history.pair(source, code, base, date);
      if (!pair) return undefined;
      const value = unitsPerBase(pair[0].figure).div(unitsPerBase(pair[1].figure));
      return [value.num, value.den];
    },
    text(code, base) {
      const pair = history.pair(source, code, base, date);
      if (!pair || pair[0].base !== base || pair[1].code !== pair[1].base) return undefined;
      const { figure } = pair[0];
      return figure.units === '1' && figure.direction === 'units-per-base' ? figure.value : undefined;
    },
    codes: () => codes,
  };
}

/** What a series asks of its days: the base, the columns, the grouping and the rounding. */
export interface SeriesRequest {
  base: string;
  /** The codes of every entry, in this order. */
  codes: readonly string[];
  group: SeriesGroup;
  /** Round each rate once to this many places (from its exact value: a published string too); unrounded when absent. */
  decimals?: number | undefined;
  /** How to round to `decimals`; HALF_UP when absent. */
  rounding?: RoundingMode | undefined;
}
