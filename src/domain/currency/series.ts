import { formatFraction } from '../decimal';
import type { Publication } from '../ecb';
import { ExactSum } from './mean';
import { FigureRange, type PeriodFigures } from './period-change';
import { periodOf } from './periods';
import { figurePrint, publicationPoint } from './series-change';
import { asSeriesDay, type SeriesDay, type SeriesRequest } from './series-day';

/**
 * One entry of a time series. Per publication (`group=day`): `period`, `start` and `end` are its
 * date and `publications` is 1. Grouped: `period` is the ISO week, month or year ("2024-W13",
 * "2024-03", "2024"), `start`/`end` the first and last publication it covers (inside the range
 * asked for), and each rate the exact mean of that period's publications, rounded once.
 *
 * A currency missing from some publications of a period (RUB after 2022-03-01) is averaged over
 * the publications that quote it, and `partial` gives how many those were; one quoted on none of
 * them is absent from `rates`. Grouped entries also give each currency's first, last, lowest and
 * highest figure of the period and the change from first to last (`figures`, period-change.ts).
 * A publication that does not quote the base has no rates against it,
 * so it is skipped: not an entry, not counted.
 */
export interface SeriesEntry {
  period: string;
  start: string;
  end: string;
  publications: number;
  rates: Record<string, string>;
  /** Codes averaged over fewer publications than `publications`, with their own count; grouped entries only. */
  partial?: Record<string, number>;
  /** Each currency's first, last, lowest and highest figure of the period, and its change; grouped entries only. */
  figures?: Record<string, PeriodFigures>;
}

export type { SeriesRequest } from './series-day';

/**
 * The codes a series lists by default: every code any of the publications quotes, in the order the
 * ECB first lists them, EUR first when it is not the base; never the base itself (always "1").
 */
export function seriesCodes(publications: readonly (Publication | SeriesDay)[], base: string): string[] {
  const codes = new Set<string>(base === 'EUR' ? [] : ['EUR']);
  for (const pub of publications) {
    if ('rates' in pub) for (const code of Object.keys(pub.rates)) codes.add(code);
    else for (const code of pub.codes()) codes.add(code);
  }
  codes.delete(base);
  return [...codes];
}

function dayEntry(day: SeriesDay, request: SeriesRequest): SeriesEntry | undefined {
  const { base, decimals } = request;
  if (!day.quotes(base)) return undefined;
  const rates: Record<string, string> = {};
  for (const code of request.codes) {
    // The publisher's own text where it has one against this base (the ECB's strings for base
    // EUR, section 5); any other base, or `decimals`: the exact quotient, rounded once.
    const text = decimals === undefined ? day.text(code, base) : undefined;
    if (text !== undefined) {
      rates[code] = text;
      continue;
    }
    const cross = day.cross(code, base);
    if (cross) rates[code] = formatFraction(...cross, decimals, request.rounding ?? 'HALF_UP');
  }
  return { period: day.date, start: day.date, end: day.date, publications: 1, rates };
}

class PeriodMean {
  readonly sums = new Map<string, ExactSum>();
  readonly ranges = new Map<string, FigureRange>();
  start = '';
  end = '';
  publications = 0;

  constructor(readonly key: string) {}

  entry(request: SeriesRequest): SeriesEntry {
    const { codes, decimals, rounding } = request;
    const print = figurePrint(request);
    const rates: Record<string, string> = {};
    const partial: Record<string, number> = {};
    const figures: Record<string, PeriodFigures> = {};
    for (const code of codes) {
      const sum = this.sums.get(code);
      if (!sum) continue;
      rates[code] = sum.formatMean(decimals, rounding);
      if (sum.count < this.publications) partial[code] = sum.count;
      const range = this.ranges.get(code)?.figures(print);
      if (range) figures[code] = range;
    }
    const entry: SeriesEntry = { period: this.key, start: this.start, end: this.end, publications: this.publications, rates };
    if (Object.keys(partial).length > 0) entry.partial = partial;
    entry.figures = figures;
    return entry;
  }

  /** Adds the figure of each code a publication quotes (the publication quotes the base, as `base`). */
  add(day: SeriesDay, request: SeriesRequest): void {
    this.end = day.date;
    this.publications += 1;
    for (const code of request.codes) {
      const point = publicationPoint(day, code, request.base);
      if (!point) continue;
      let sum = this.sums.get(code);
      if (!sum) this.sums.set(code, (sum = new ExactSum()));
      let range = this.ranges.get(code);
      if (!range) this.ranges.set(code, (range = new FigureRange()));
      sum.add(point.value.num, point.value.den);
      range.add(point);
    }
  }
}

/**
 * A series folded one publication at a time (oldest first, already limited to the range), so that
 * its caller decides where to pause: `add` gives the entry a publication completes (a day's own
 * entry, or the period that ended before it), `end` the last one.
 */
export class SeriesFold {
  private current: PeriodMean | undefined;

  constructor(private readonly request: SeriesRequest) {}

  add(publication: Publication | SeriesDay): SeriesEntry | undefined {
    const request = this.request;
    const day = asSeriesDay(publication);
    if (request.group === 'day') return dayEntry(day, request);
    if (!day.quotes(request.base)) return undefined;
    const key = periodOf(day.date, request.group).key;
    let done: SeriesEntry | undefined;
    if (!this.current || this.current.key !== key) {
      if (this.current) done = this.current.entry(request);
      this.current = new PeriodMean(key);
      this.current.start = day.date;
    }
    this.current.add(day, request);
    return done;
  }

  end(): SeriesEntry | undefined {
    const last = this.current?.entry(this.request);
    this.current = undefined;
    return last;
  }
}

/**
 * The entries of a series over `publications` (oldest first, already limited to the range): a
 * generator, so an export streams entry by entry and a grouped one holds a single period at a time.
 */
export function* seriesEntries(publications: Iterable<Publication | SeriesDay>, request: SeriesRequest): Generator<SeriesEntry> {
  const fold = new SeriesFold(request);
  for (const pub of publications) {
    const entry = fold.add(pub);
    if (entry) yield entry;
  }
  const last = fold.end();
  if (last) yield last;
}
