import { formatFraction, type RoundingMode } from '../decimal';
import type { ScaledRate } from './cross';

/** An exact positive value as a fraction, not necessarily in lowest terms (a Rational is one). */
export interface Fraction {
  readonly num: bigint;
  readonly den: bigint;
}

/**
 * One figure of a series: the day it stands for, its exact value (units of a currency per unit of
 * the base) and, when the figure is a publisher's own, its text as printed ("1.0820" keeps its zero).
 * Nothing here knows who published it: any source's figures, or cross rates of them, fold alike.
 */
export interface SeriesPoint {
  readonly date: string;
  readonly value: Fraction | ScaledRate;
  readonly text?: string | undefined;
}

/** How figures are printed: rounded once to `decimals` places, else exact by the unrounded rule (contract §3). */
export interface FigurePrint {
  /** Print a point's `text` as it stands when it has one and no rounding is asked (base EUR, no decimals). */
  readonly published: boolean;
  readonly decimals?: number | undefined;
  readonly rounding?: RoundingMode | undefined;
}

/** The first and last figures of a span and how far the last moved from the first. */
export interface FigureChange {
  /** The day of the first figure, and that figure. */
  start: string;
  startRate: string;
  /** The day of the last figure, and that figure. */
  end: string;
  endRate: string;
  /** last − first, exact, rounded once. */
  change: string;
  /** (last − first) / first × 100, exact, rounded once. */
  changePercent: string;
}

/** A period's first, last, lowest and highest figures, and the change from its first to its last. */
export interface PeriodFigures {
  first: string;
  last: string;
  min: string;
  max: string;
  change: string;
  changePercent: string;
}

interface Held {
  readonly date: string;
  readonly num: bigint;
  readonly den: bigint;
  readonly text: string | undefined;
}

function held(point: SeriesPoint): Held {
  const value = point.value;
  const [num, den] = 'digits' in value ? [value.digits, value.scale] : [value.num, value.den];
  if (den <= 0n || num <= 0n) throw new RangeError(`a rate is positive: ${point.date} has ${num}/${den}`);
  return { date: point.date, num, den, text: point.text };
}

/** a < b, by cross multiplication (both denominators are positive). */
const below = (a: Held, b: Held): boolean => a.num * b.den < b.num * a.den;

const printed = (figure: Held, print: FigurePrint): string =>
  print.published && print.decimals === undefined && figure.text !== undefined
    ? figure.text
    : formatFraction(figure.num, figure.den, print.decimals, print.rounding);

/** last − first and its percentage of first, each from the exact values and rounded once. */
function changeOf(first: Held, last: Held, print: FigurePrint): { change: string; changePercent: string } {
  const delta = last.num * first.den - first.num * last.den;
  return {
    change: formatFraction(delta, last.den * first.den, print.decimals, print.rounding),
    changePercent: formatFraction(delta * 100n * first.den, last.den * first.num * first.den, print.decimals, print.rounding),
  };
}

/**
 * The figures of one currency over a span, taken one point at a time, oldest first: what it holds
 * does not grow with the span (four figures). On a tie the earlier figure stays the lowest or
 * highest, so its text is the one printed.
 */
export class FigureRange {
  private first: Held | undefined;
  private last: Held | undefined;
  private min: Held | undefined;
  private max: Held | undefined;

  add(point: SeriesPoint): void {
    const figure = held(point);
    if (this.last && figure.date <= this.last.date)
      throw new RangeError(`points must come oldest first, one a day: ${figure.date} after ${this.last.date}`);
    this.first ??= figure;
    this.last = figure;
    if (!this.min || below(figure, this.min)) this.min = figure;
    if (!this.max || below(this.max, figure)) this.max = figure;
  }

  /** The span's figures, or undefined when no point was added. */
  figures(print: FigurePrint): PeriodFigures | undefined {
    const { first, last, min, max } = this;
    if (!first || !last || !min || !max) return undefined;
    return {
      first: printed(first, print),
      last: printed(last, print),
      min: printed(min, print),
      max: printed(max, print),
      ...changeOf(first, last, print),
    };
  }
}

/** periodFigures of a list of points (oldest first); undefined for none. */
export function periodFigures(points: Iterable<SeriesPoint>, print: FigurePrint): PeriodFigures | undefined {
  const range = new FigureRange();
  for (const point of points) range.add(point);
  return range.figures(print);
}

/** The change from the point `first` to the point `last` (a later one, or the same), with their days. */
export function changeBetween(first: SeriesPoint, last: SeriesPoint, print: FigurePrint): FigureChange {
  const [a, b] = [held(first), held(last)];
  if (b.date < a.date) throw new RangeError(`the change runs forward in time: ${b.date} is before ${a.date}`);
  return { start: a.date, startRate: printed(a, print), end: b.date, endRate: printed(b, print), ...changeOf(a, b, print) };
}
