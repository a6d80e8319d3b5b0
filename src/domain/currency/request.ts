import { calendarDateProblem, isCalendarDate } from '../dates';
import { parseDecimalValue, parseDecimals, parseRounding, type RoundingMode } from '../decimal';
import { ApiError, refusalWithNextStep } from '../errors';
import { didYouMean, nearestNames } from '../nearest-names';
import { quoteInput } from '../quote-input';
import { planAllowsHistory, type PlanId } from '../plans';
import type { Rational } from '../rational';
import { CURRENCY_CODES, looksLikeCurrencyCode } from './codes';

/** The first day of the ECB's euro reference rates. */
export const FIRST_PUBLICATION = '1999-01-04';

export interface CurrencyRequest {
  value: unknown;
  from: unknown;
  to: unknown;
  decimals?: unknown;
  rounding?: unknown;
  minorUnits?: unknown;
  date?: unknown;
}

export interface ParsedCurrencyRequest {
  text: string;
  value: Rational;
  from: string;
  to: string;
  decimals: number | undefined;
  rounding: RoundingMode;
  /** Round the result to the ISO 4217 minor units of `to` (never together with `decimals`). */
  minorUnits: boolean;
  date: string | undefined;
}

/** Checks the shape of every input (contract: validation comes before plan and existence). */
export function parseCurrencyRequest(request: CurrencyRequest): ParsedCurrencyRequest {
  const value = parseDecimalValue(request.value);
  const decimals = parseDecimals(request.decimals);
  const rounding = parseRounding(request.rounding);
  const minorUnits = parseMinorUnits(request.minorUnits, decimals);
  const from = currencyCodeShape(request.from, 'from');
  const to = currencyCodeShape(request.to, 'to');
  const date = parseDate(request.date);
  return { text: request.value as string, value, from, to, decimals, rounding, minorUnits, date };
}

/** `minorUnits`: true or false (absent: false); true with `decimals` is refused, the two say the same thing. */
export function parseMinorUnits(value: unknown, decimals: number | undefined): boolean {
  if (value === undefined || value === null || value === false) return false;
  if (value !== true) throw new ApiError('INVALID_REQUEST', 'minorUnits must be true or false.', { param: 'minorUnits' });
  if (decimals !== undefined) {
    throw new ApiError(
      'INVALID_REQUEST',
      "minorUnits and decimals cannot be used together: minorUnits rounds to the currency's ISO 4217 minor units, decimals to a number of places.",
      { param: 'minorUnits' },
    );
  }
  return true;
}

/** Upper-cased when written like a code; a malformed one is INVALID_REQUEST, not UNKNOWN_CURRENCY. */
export function currencyCodeShape(token: unknown, param: string): string {
  if (typeof token !== 'string' || !looksLikeCurrencyCode(token)) {
    throw new ApiError('INVALID_REQUEST', `${param} must be a three-letter currency code such as "USD".`, { param });
  }
  return token.toUpperCase();
}

export function parseDate(date: unknown, param = 'date'): string | undefined {
  if (date === undefined || date === null) return undefined;
  if (typeof date !== 'string' || !isCalendarDate(date)) {
    throw new ApiError('INVALID_REQUEST', calendarDateProblem(date, param), { param });
  }
  return date;
}

/**
 * UNKNOWN_CURRENCY for a code neither quoted by the ECB nor replaced by law (the static lists, plus
 * anything seen in data), with the known codes nearest to it: "GPB" (did you mean GBP?), and the
 * registry to look codes up in. The same words as an unknown code in a path (findCurrency), whose
 * code is NOT_FOUND instead: a query or body input is a bad argument, a path names a resource.
 */
export function requireKnownCurrency(code: string, param: string, seen: ReadonlySet<string>): void {
  if (!CURRENCY_CODES.has(code) && !seen.has(code)) {
    const hint = didYouMean(nearestNames(code, new Set([...CURRENCY_CODES, ...seen])));
    throw new ApiError('UNKNOWN_CURRENCY', `Currency ${quoteInput(code)} is not supported${hint}.`, { param, seeAlso: 'currencies' });
  }
}

/** RATE_NOT_FOUND for a day with no possible data: before the first publication or after today. */
export function requirePossibleDate(date: string, today: string, param = 'date'): void {
  if (date < FIRST_PUBLICATION) {
    throw new ApiError('RATE_NOT_FOUND', `There are no ECB rates before ${FIRST_PUBLICATION}.`, { param });
  }
  if (date > today) {
    throw new ApiError('RATE_NOT_FOUND', `There are no rates for ${date} yet: it is after today (${today}, Europe/Berlin).`, { param });
  }
}

/** PLAN_REQUIRED when a date (history) is asked for on a plan without it. */
export function requireHistoryPlan(date: string | undefined, plan: PlanId): void {
  if (date !== undefined && !planAllowsHistory(plan)) {
    throw refusalWithNextStep(
      'PLAN_REQUIRED',
      'Historical rates (date) need the Developer plan or higher; without date, the latest rates answer.',
      {
        param: 'date',
      },
    );
  }
}

/** Longer than any list of every code ever quoted (about 45 codes of 4 characters each with its comma). */
export const MAX_SYMBOLS_LENGTH = 400;

/** `symbols` is a comma list of codes, case-insensitive; duplicates are folded. */
export function parseSymbols(symbols: unknown): string[] | undefined {
  if (symbols === undefined || symbols === null) return undefined;
  if (typeof symbols !== 'string' || symbols.length > MAX_SYMBOLS_LENGTH) {
    throw new ApiError('INVALID_REQUEST', 'symbols must be a comma-separated list of currency codes.', { param: 'symbols' });
  }
  return [...new Set(symbols.split(',').map((s) => currencyCodeShape(s.trim(), 'symbols')))];
}
