import { addDays } from '../calendar/berlin-time';
import { Rational } from '../rational';
import { sourceInfo } from './catalog';
import type { SourceFigure, SourceId, SourcePublication } from './types';

/** One published figure of one currency, with the publication it comes from. */
export interface ResolvedFigure {
  readonly source: SourceId;
  readonly table: string;
  /** The publication's day (an earlier one than the day asked when carried forward). */
  readonly date: string;
  readonly base: string;
  readonly code: string;
  /** The figure as published; the base's own figure is "1" per "1". */
  readonly figure: SourceFigure;
}

/** The first and last day a source quoted a currency. */
export interface SourceSpan {
  readonly first: string;
  readonly last: string;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const UNIT_FIGURE: SourceFigure = Object.freeze({ value: '1', units: '1', direction: 'units-per-base' });

/** Each figure's reading, made once: a figure held is never changed (a correction is a new figure). */
const readings = new WeakMap<SourceFigure, Rational>();

/** Units of the figure's currency per one unit of its base, exactly: the one reading of a figure every answer uses. */
export function unitsPerBase(figure: SourceFigure): Rational {
  const held = readings.get(figure);
  if (held) return held;
  const value = Rational.parse(figure.value);
  const units = Rational.parse(figure.units);
  const reading = figure.direction === 'units-per-base' ? value.div(units) : units.div(value);
  readings.set(figure, reading);
  return reading;
}

/** The carry limit of a source's table, in days (catalog.ts); a table the catalogue does not name carries a week. */
function carryDays(source: SourceId, table: string): number {
  return sourceInfo(source).tables.find((t) => t.id === table)?.schedule.carryDays ?? 7;
}

/** The entries of one currency in one source, oldest first, for a binary search by day. */
interface CodeEntries {
  readonly dates: string[];
  readonly figures: ResolvedFigure[];
  /** The last day each figure still stands for: its day plus its table's carry limit. */
  readonly until: string[];
}

/** The latest entry on or before `date`, or -1. */
function latestOnOrBefore(dates: readonly string[], date: string): number {
  let low = 0;
  let high = dates.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (dates[mid]! <= date) low = mid + 1;
    else high = mid;
  }
  return low - 1;
}

function publicationKey(pub: SourcePublication): string {
  return `${pub.source}\u0000${pub.table}\u0000${pub.date}`;
}

function sameFigures(a: SourcePublication, b: SourcePublication): boolean {
  const codes = Object.keys(a.figures);
  if (a.base !== b.base || codes.length !== Object.keys(b.figures).length) return false;
  return codes.every((code) => {
    const [x, y] = [a.figures[code]!, b.figures[code]];
    return y !== undefined && x.value === y.value && x.units === y.units && x.direction === y.direction;
  });
}

/**
 * Every publication held of the sources other than the ECB, immutable: a figure of a currency on a
 * day is the latest publication on or before it that quotes the currency, no older than its table's
 * carry limit (a weekly table's figure stands for its week, a daily one over holidays). The base of
 * a source is always quoted, at 1, on the days the source published.
 */
export class SourceHistory {
  private readonly byKey: ReadonlyMap<string, SourcePublication>;
  private readonly entries = new Map<string, CodeEntries>();
  private readonly spans = new Map<SourceId, Map<string, SourceSpan>>();
  private readonly newest = new Map<string, string>();

  private constructor(byKey: ReadonlyMap<string, SourcePublication>) {
    this.byKey = byKey;
    const sorted = [...byKey.values()].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
    for (const pub of sorted) this.index(pub);
  }

  static readonly EMPTY = new SourceHistory(new Map());

  /** Throws TypeError on a malformed day or a repeated (source, table, day): the loaders never produce one. */
  static from(pubs: readonly SourcePublication[]): SourceHistory {
    return SourceHistory.EMPTY.merge(pubs);
  }

  /**
   * This history plus `pubs`: a new day is added; on a day held, each figure given replaces the one
   * held (a publisher's correction) and the others stay (a response of one currency over days, such
   * as the Bank of Russia's dynamic one, adds to the day's table). Returns `this` when nothing changed.
   */
  merge(pubs: readonly SourcePublication[]): SourceHistory {
    const next = new Map(this.byKey);
    const seen = new Set<string>();
    let changed = false;
    for (const pub of pubs) {
      const key = publicationKey(pub);
      if (!ISO_DATE.test(pub.date)) throw new TypeError(`SourceHistory: expected a YYYY-MM-DD date, got ${JSON.stringify(pub.date)}`);
      if (seen.has(key)) throw new TypeError(`SourceHistory: ${pub.source} table "${pub.table}" repeats ${pub.date}`);
      seen.add(key);
      const held = next.get(key);
      const merged = held ? { ...pub, figures: { ...held.figures, ...pub.figures } } : pub;
      if (held && sameFigures(held, merged)) continue;
      next.set(key, merged);
      changed = true;
    }
    return changed ? new SourceHistory(next) : this;
  }

  /** Every publication held, in no particular order (what a store persists). */
  publications(): IterableIterator<SourcePublication> {
    return this.byKey.values();
  }

  get size(): number {
    return this.byKey.size;
  }

  /** The newest publication day of a source (of any of its tables), or undefined when none is held. */
  latest(source: SourceId): string | undefined {
    return this.newest.get(source);
  }

  /** The newest publication day of one table of a source. */
  latestOfTable(source: SourceId, table: string): string | undefined {
    return this.newest.get(`${source}\u0000${table}`);
  }

  /** Each currency the source has quoted (its base included), with its first and last day. */
  quoted(source: SourceId): ReadonlyMap<string, SourceSpan> {
    return this.spans.get(source) ?? new Map();
  }

  /**
   * The figure of `code` in effect on `date` from each table of `source` that quotes it (catalogue
   * order); without a date, each table's newest figure that the table still carries on its newest day.
   */
  figures(source: SourceId, code: string, date?: string): ResolvedFigure[] {
    const found: ResolvedFigure[] = [];
    for (const { id } of sourceInfo(source).tables) {
      const entries = this.entries.get(`${source}\u0000${id}\u0000${code}`);
      if (!entries) continue;
      const i = latestOnOrBefore(entries.dates, date ?? entries.dates.at(-1)!);
      if (i < 0) continue;
      const figure = entries.figures[i]!;
      const reference = date ?? this.latestOfTable(source, id)!;
      if (entries.until[i]! >= reference) found.push(figure);
    }
    return found;
  }

  /**
   * The figures of two currencies from one source on one day, priced against one base (NBP's
   * tables A and B share the zloty; the IMF's per-dollar and per-SDR tables do not mix): the first
   * such pair in catalogue order of the tables, or undefined when the source does not quote both.
   */
  pair(source: SourceId, from: string, to: string, date?: string): [ResolvedFigure, ResolvedFigure] | undefined {
    const froms = this.figures(source, from, date);
    if (froms.length === 0) return undefined;
    const tos = this.figures(source, to, date);
    for (const a of froms) {
      const b = tos.find((t) => t.base === a.base);
      if (b) return [a, b];
    }
    return undefined;
  }

  private index(pub: SourcePublication): void {
    const codes: [string, SourceFigure][] = [[pub.base, UNIT_FIGURE], ...Object.entries(pub.figures)];
    const until = addDays(pub.date, carryDays(pub.source, pub.table));
    for (const [code, figure] of codes) {
      const key = `${pub.source}\u0000${pub.table}\u0000${code}`;
      const entries = this.entries.get(key) ?? { dates: [], figures: [], until: [] };
      this.entries.set(key, entries);
      const resolved: ResolvedFigure = { source: pub.source, table: pub.table, date: pub.date, base: pub.base, code, figure };
      entries.dates.push(pub.date);
      entries.figures.push(resolved);
      entries.until.push(until);
      const spans = this.spans.get(pub.source) ?? new Map<string, SourceSpan>();
      this.spans.set(pub.source, spans);
      spans.set(code, { first: spans.get(code)?.first ?? pub.date, last: pub.date });
    }
    this.newest.set(pub.source, pub.date);
    this.newest.set(`${pub.source}\u0000${pub.table}`, pub.date);
  }
}
