import { isCalendarDate } from '../dates';
import { FeedFormatError, type FeedRowIssue, type ParsedFeed, type SourceFigure, type SourceId, type SourcePublication } from './types';

/** A figure's value once normalised: digits with an optional fraction, nothing else. */
const PLAIN_DECIMAL = /^\d+(\.\d+)?$/;
/** A count of units as published (1, 10, 100 …): a positive whole number. */
const WHOLE_UNITS = /^[1-9]\d*$/;
const CURRENCY_CODE = /^[A-Z]{3}$/;

/** A row that cannot be read: the loader skips it and records the reason, never guesses. */
export class RowRejected extends Error {}

/** Quotes a published text in a reason, cut short so one odd row cannot flood a log. */
export function show(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

/**
 * The published text of a figure as its value. The only change made is a decimal comma read as a
 * point ("12,3456" → "12.3456"); the result must be a plain decimal above zero, so an exponent, a
 * sign, a space or a grouping separator is refused rather than reinterpreted.
 */
export function figureValue(text: string): string {
  const value = text.replace(',', '.');
  if (!PLAIN_DECIMAL.test(value)) throw new RowRejected(`the figure ${show(text)} is not a plain decimal number`);
  if (!/[1-9]/.test(value)) throw new RowRejected(`the figure ${show(text)} is not above zero`);
  return value;
}

/** The published count of units a figure prices, as text. */
export function unitsText(text: string): string {
  if (!WHOLE_UNITS.test(text)) throw new RowRejected(`the unit count ${show(text)} is not a positive whole number`);
  return text;
}

/** "25.04.2026" (the Bank of Russia's and the NBU's day) as 2026-04-25; anything else is refused. */
export function dottedDate(text: string): string {
  const match = /^(\d{2})\.(\d{2})\.(\d{4})$/.exec(text);
  if (!match) throw new RowRejected(`the date ${show(text)} is not written DD.MM.YYYY`);
  return calendarDate(`${match[3]}-${match[2]}-${match[1]}`, text);
}

/** A YYYY-MM-DD day that exists in the calendar (2026-02-31 is refused, never rolled over). */
export function calendarDate(iso: string, published = iso): string {
  if (!isCalendarDate(iso)) throw new RowRejected(`the date ${show(published)} is not a calendar day`);
  return iso;
}

export interface FigureRow {
  readonly line: number;
  readonly table: string;
  readonly date: string;
  readonly code: string;
  readonly figure: SourceFigure;
}

/**
 * Gathers the figures of one response into one publication per (table, date). The base currency
 * is never a figure (it is what the others are priced in); the same currency twice on one day with
 * different figures means the response is not what it claims, so the whole import fails.
 */
export class FeedCollector {
  readonly skipped: FeedRowIssue[] = [];
  private readonly days = new Map<string, { table: string; date: string; figures: Record<string, SourceFigure> }>();

  constructor(
    private readonly source: SourceId,
    private readonly base: string,
  ) {}

  /** Records a skipped row. */
  skip(line: number, reason: string): void {
    this.skipped.push({ line, reason });
  }

  /** Runs `read` for one row: a RowRejected it throws becomes a skipped row, anything else propagates. */
  row(line: number, read: () => void): void {
    try {
      read();
    } catch (error) {
      if (!(error instanceof RowRejected)) throw error;
      this.skip(line, error.message);
    }
  }

  add({ line, table, date, code, figure }: FigureRow): void {
    if (!CURRENCY_CODE.test(code)) throw new RowRejected(`the currency ${show(code)} is not three upper-case letters`);
    if (code === this.base) return;
    const key = `${table}\u0000${date}`;
    let day = this.days.get(key);
    if (!day) {
      day = { table, date, figures: Object.create(null) as Record<string, SourceFigure> };
      this.days.set(key, day);
    }
    const seen = day.figures[code];
    if (seen && (seen.value !== figure.value || seen.units !== figure.units || seen.direction !== figure.direction)) {
      const where = table === '' ? date : `${date} in table ${table}`;
      throw new FeedFormatError(this.source, line, `${code} is quoted twice on ${where}, ${seen.value} and ${figure.value}`);
    }
    day.figures[code] = figure;
  }

  /** The publications, by date and then by table, and the skipped rows in the order they were met. */
  result(): ParsedFeed {
    const publications: SourcePublication[] = [...this.days.values()]
      .sort((a, b) => (a.date === b.date ? compare(a.table, b.table) : compare(a.date, b.date)))
      .map((day) => ({ source: this.source, table: day.table, date: day.date, base: this.base, figures: sortedFigures(day.figures) }));
    return { publications, skipped: this.skipped };
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortedFigures(figures: Record<string, SourceFigure>): Record<string, SourceFigure> {
  return Object.fromEntries(
    Object.keys(figures)
      .sort()
      .map((code) => [code, figures[code]!]),
  );
}
