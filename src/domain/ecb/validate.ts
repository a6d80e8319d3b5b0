import { isCalendarDate } from '../dates';
import type { Publication } from './types';

/** The bytes are not a well-formed ECB rates file; the message says what is wrong and where. */
export class EcbFormatError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'EcbFormatError';
  }
}

const CODE = /^[A-Z]{3}$/;
// Linear-time pattern: no nested quantifiers, so a hostile cell cannot make it backtrack.
const RATE = /^\d{1,12}(\.\d{1,12})?$/;
const NON_ZERO = /[1-9]/;

/** A value quoted for a message: JSON-escaped and cut short, since it may come from an HTML page. */
export function show(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}

export function dateProblem(date: string): string | undefined {
  return isCalendarDate(date) ? undefined : `invalid date ${show(date)} (expected a calendar day YYYY-MM-DD)`;
}

/** EUR is refused: it is the base, and a quoted EUR would break "EUR is always 1". */
export function currencyProblem(code: string): string | undefined {
  if (!CODE.test(code)) return `invalid currency code ${show(code)} (expected three capital letters)`;
  return code === 'EUR' ? 'EUR is the base currency and cannot be quoted' : undefined;
}

/**
 * Why `code` cannot be added with `rate` to the `rates` of `date`, or undefined when it can.
 */
export function rateEntryProblem(date: string, rates: Record<string, string>, code: string, rate: string): string | undefined {
  const bad = currencyProblem(code);
  if (bad) return `${bad} on ${date}`;
  if (Object.hasOwn(rates, code)) return `duplicate currency ${code} on ${date}`;
  if (!RATE.test(rate) || !NON_ZERO.test(rate)) {
    return `invalid rate ${show(rate)} for ${code} on ${date} (expected a positive plain decimal such as 1.0842)`;
  }
  return undefined;
}

/**
 * Gathers the days of one file, refusing a repeated date or a day without rates, and hands them
 * back frozen and sorted by date. `L` is the parser's notion of a position; it is only turned
 * into text for a message, so parsing a large file does not pay for line counting.
 */
export class PublicationCollector<L> {
  private readonly firstSeen = new Map<string, L>();
  private readonly publications: Publication[] = [];
  private readonly locate: (at: L) => string;

  constructor(locate: (at: L) => string) {
    this.locate = locate;
  }

  add(date: string, rates: Record<string, string>, at: L): void {
    const first = this.firstSeen.get(date);
    if (first !== undefined) {
      throw new EcbFormatError(`duplicate date ${date} at ${this.locate(at)} (first at ${this.locate(first)})`);
    }
    if (Object.keys(rates).length === 0) throw new EcbFormatError(`no rates for ${date} at ${this.locate(at)}`);
    this.firstSeen.set(date, at);
    this.publications.push(Object.freeze({ date, rates: Object.freeze(rates) }));
  }

  /** The days sorted oldest first (dates are unique, so the order is total). */
  finish(): Publication[] {
    return this.publications.sort((a, b) => (a.date < b.date ? -1 : 1));
  }
}
