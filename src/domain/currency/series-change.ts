import type { Publication } from '../ecb';
import { crossFraction, publishedRate, servesPublishedStrings, type ScaledRate } from './cross';
import { changeBetween, type FigureChange, type FigurePrint, type Fraction, type SeriesPoint } from './period-change';
import type { SeriesRequest } from './series';

/** How a series prints its figures: the published strings for base EUR without `decimals`, else each rounded once. */
export function figurePrint({ base, decimals, rounding }: Pick<SeriesRequest, 'base' | 'decimals' | 'rounding'>): FigurePrint {
  return { published: servesPublishedStrings(base, { decimals }), decimals, rounding };
}

/** A point whose value is a fraction (a cross rate): what a mean adds up as well. */
export interface FractionPoint extends SeriesPoint {
  readonly value: Fraction;
}

/**
 * The figure of `code` against the base on a publication (whose base rate is `base`), or undefined
 * when it does not quote the code. Against EUR the figure is the publication's own, with its text.
 */
export function publicationPoint(pub: Publication, code: string, baseCode: string, base: ScaledRate): FractionPoint | undefined {
  const rate = publishedRate(pub, code);
  if (!rate) return undefined;
  const [num, den] = crossFraction(rate, base);
  const text = baseCode === 'EUR' ? (code === 'EUR' ? '1' : pub.rates[code]) : undefined;
  return { date: pub.date, value: { num, den }, text };
}

/** The first (or, with `fromEnd`, the last) figure of `code` among publications that quote it and the base. */
function endPoint(publications: readonly Publication[], code: string, base: string, fromEnd: boolean): SeriesPoint | undefined {
  const n = publications.length;
  for (let i = 0; i < n; i++) {
    const pub = publications[fromEnd ? n - 1 - i : i]!;
    const baseRate = publishedRate(pub, base);
    const point = baseRate && publicationPoint(pub, code, base, baseRate);
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
export function seriesChange(publications: readonly Publication[], request: SeriesRequest): Record<string, FigureChange> {
  const print = figurePrint(request);
  const changes: Record<string, FigureChange> = {};
  for (const code of request.codes) {
    const first = endPoint(publications, code, request.base, false);
    const last = first && endPoint(publications, code, request.base, true);
    if (first && last) changes[code] = changeBetween(first, last, print);
  }
  return changes;
}
