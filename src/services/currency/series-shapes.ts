import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FigureChange } from '../../domain/currency/period-change';
import type { SeriesGroup } from '../../domain/currency/periods';
import type { SeriesEntry, SeriesFold } from '../../domain/currency/series';
import type { SeriesDay } from '../../domain/currency/series-day';
import type { RoundingMode } from '../../domain/decimal';
import type { Publication } from '../../domain/ecb';
import type { SourceId } from '../../domain/sources/types';

export interface SeriesQuery {
  start?: unknown;
  end?: unknown;
  base?: unknown;
  symbols?: unknown;
  group?: unknown;
  cursor?: unknown;
  decimals?: unknown;
  rounding?: unknown;
  /** A source other than the ECB: that source's own days and figures (absent or "ecb": the ECB's). */
  source?: unknown;
  /** The media type the page is written in (JSON when absent): cursors are bound to it. */
  format?: string;
}

/** A page of a series as decided from the query and the dates held, before any publication is read. */
export interface SeriesPlan {
  start: string;
  end: string;
  base: string;
  group: SeriesGroup;
  /** Places each rate is rounded to once, and how; unrounded when `decimals` is absent. */
  decimals: number | undefined;
  rounding: RoundingMode;
  /** The currencies asked for; undefined for every currency quoted in the page. */
  asked: string[] | undefined;
  nextCursor: string | null;
  /**
   * True when the answer to this query can no longer change (an ECB correction of a past day
   * aside): the page, as asked and not clipped to today, ends before the next expected publication.
   */
  complete: boolean;
  /** The publication dates held in the page. */
  dates: readonly string[];
  /** The source other than the ECB whose days these are; absent for the ECB. */
  source?: SourceId | undefined;
  /**
   * With `source`: the revision of the sources' publications the page was planned from. Its answer
   * is the same for as long as they are, so the export cache keeps it under that revision.
   */
  sourceRevision?: number | undefined;
  /** With `source`: the currencies its publications in the page quote besides the base (the columns of a page without `symbols`). */
  quotedCurrencies?: number | undefined;
}

/** One page of a series: the range it covers, its columns, and its entries. */
export interface SeriesAnswer
  extends Omit<SeriesPlan, 'asked' | 'dates' | 'decimals' | 'rounding' | 'source' | 'sourceRevision' | 'quotedCurrencies'> {
  source: SourceId;
  /** The codes of every entry, in order (the CSV columns). */
  symbols: string[];
  /** Each currency's change from its first rate of the page to its last, in the order of `symbols`. */
  change: Record<string, FigureChange>;
  /** The entries, computed afresh per call. */
  entries(): Generator<SeriesEntry>;
  /** The same entries a chunk at a time, yielding to the event loop before each chunk after the first; a chunk ends once its work took `budgetMs`. */
  chunks(budgetMs: number): AsyncGenerator<SeriesEntry[]>;
}

/**
 * A page of a series read as it is written: its columns decided before any entry, its entries
 * folded from its publications a slice at a time, so that what it holds does not grow with its
 * range (an export of the whole history).
 */
export interface SeriesStream extends Omit<SeriesAnswer, 'entries' | 'chunks' | 'change'> {
  /** The entries, a slice of publications read per event-loop turn and folded in turns of about `budgetMs` of work; each call reads afresh. */
  chunks(budgetMs: number): AsyncGenerator<SeriesEntry[]>;
}

/** The entries a fold of `publications` gives, a chunk per event-loop turn: a chunk ends once its work took `budgetMs`. */
export async function* entryChunks(
  publications: readonly (Publication | SeriesDay)[],
  fold: SeriesFold,
  budgetMs: number,
): AsyncGenerator<SeriesEntry[]> {
  let next = 0;
  while (next < publications.length) {
    if (next > 0) await nextTurn();
    const started = performance.now();
    const chunk: SeriesEntry[] = [];
    do {
      const entry = fold.add(publications[next++]!);
      if (entry) chunk.push(entry);
    } while (next < publications.length && performance.now() - started < budgetMs);
    if (next === publications.length) {
      const last = fold.end();
      if (last) chunk.push(last);
    }
    if (chunk.length > 0) yield chunk;
  }
}
