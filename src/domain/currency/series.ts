import { formatFraction, type RoundingMode } from '../decimal';
import type { Publication } from '../ecb';
import { formatCross, publishedRate, crossFraction, type ScaledRate } from './cross';
import { ExactSum } from './mean';
import { FigureRange, type PeriodFigures } from './period-change';
import { periodOf, type SeriesGroup } from './periods';
import { figurePrint, publicationPoint } from './series-change';

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

/**
 * The codes a series lists by default: every code any of the publications quotes, in the order the
 * ECB first lists them, EUR first when it is not the base; never the base itself (always "1").
 */
export function seriesCodes(publications: readonly Publication[], base: string): string[] {
  const codes = new Set<string>(base === 'EUR' ? [] : ['EUR']);
  for (const pub of publications) for (const code of Object.keys(pub.rates)) codes.add(code);
  codes.delete(base);
  return [...codes];
}

function dayEntry(pub: Publication, request: SeriesRequest): SeriesEntry | undefined {
  const base = publishedRate(pub, request.base);
  if (!base) return undefined;
  const rates: Record<string, string> = {};
  for (const code of request.codes) {
    // Base EUR: the ECB's strings as published (section 5), nothing to parse; any other base, or
    // `decimals`: the exact quotient, rounded once.
    if (request.base === 'EUR' && request.decimals === undefined) {
      const text = code === 'EUR' ? '1' : pub.rates[code];
      if (text !== undefined) rates[code] = text;
      continue;
    }
    const rate = publishedRate(pub, code);
    if (!rate) continue;
    if (request.decimals === undefined) rates[code] = formatCross(rate, base);
    else rates[code] = formatFraction(...crossFraction(rate, base), request.decimals, request.rounding);
  }
  return { period: pub.date, start: pub.date, end: pub.date, publications: 1, rates };
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
  add(pub: Publication, request: SeriesRequest, base: ScaledRate): void {
    this.end = pub.date;
    this.publications += 1;
    for (const code of request.codes) {
      const point = publicationPoint(pub, code, request.base, base);
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

  add(pub: Publication): SeriesEntry | undefined {
    const request = this.request;
    if (request.group === 'day') return dayEntry(pub, request);
    const base = publishedRate(pub, request.base);
    if (!base) return undefined;
    const key = periodOf(pub.date, request.group).key;
    let done: SeriesEntry | undefined;
    if (!this.current || this.current.key !== key) {
      if (this.current) done = this.current.entry(request);
      this.current = new PeriodMean(key);
      this.current.start = pub.date;
    }
    this.current.add(pub, request, base);
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
export function* seriesEntries(publications: Iterable<Publication>, request: SeriesRequest): Generator<SeriesEntry> {
  const fold = new SeriesFold(request);
  for (const pub of publications) {
    const entry = fold.add(pub);
    if (entry) yield entry;
  }
  const last = fold.end();
  if (last) yield last;
}
