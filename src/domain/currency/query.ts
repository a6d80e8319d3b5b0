import { parseDecimals, parseDecimalValue, parseRounding, type RoundingMode } from '../decimal';
import { ApiError } from '../errors';
import type { Rational } from '../rational';
import { SERIES_GROUPS, type SeriesGroup } from './periods';
import { currencyCodeShape, parseDate, parseSymbols } from './request';

/**
 * Input rules of the rates listing (any base, an amount) and of the time series: shapes only, each
 * failure INVALID_REQUEST naming its parameter. Existence (UNKNOWN_CURRENCY), plan and data
 * (RATE_NOT_FOUND) come after, in the contract's order.
 */

/** `base`: a currency code, EUR when absent. */
export function parseBase(value: unknown): string {
  return value === undefined || value === null ? 'EUR' : currencyCodeShape(value, 'base');
}

/** `symbols`: a comma list (REST) or a list of codes (GraphQL); duplicates folded; absent is "all". */
export function parseSymbolList(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return parseSymbols(value);
  if (value.length === 0 || value.length > 100) {
    throw new ApiError('INVALID_REQUEST', 'symbols must list 1 to 100 currency codes.', { param: 'symbols' });
  }
  return [...new Set(value.map((code) => currencyCodeShape(code, 'symbols')))];
}

export interface AmountOptions {
  amount: Rational | undefined;
  /** The amount as sent (shown back in the answer). */
  amountText: string | undefined;
  decimals: number | undefined;
  rounding: RoundingMode;
}

/** `amount` (a decimal string, as `value` is), `decimals` and `rounding` of the rates listing. */
export function parseAmountOptions(query: { amount?: unknown; decimals?: unknown; rounding?: unknown }): AmountOptions {
  const present = query.amount !== undefined && query.amount !== null;
  const amount = present ? parseDecimalValue(query.amount, 'amount') : undefined;
  return {
    amount,
    amountText: present ? (query.amount as string) : undefined,
    decimals: parseDecimals(query.decimals),
    rounding: parseRounding(query.rounding),
  };
}

/** `group`: day (the default), week, month, quarter or year, in lower case as written (the contract's enum: `Month` is refused). */
export function parseGroup(value: unknown): SeriesGroup {
  if (value === undefined || value === null) return 'day';
  const group = SERIES_GROUPS.find((g) => g === value);
  if (!group) {
    const lower = typeof value === 'string' && value.length <= 8 ? value.toLowerCase() : undefined;
    const hint = SERIES_GROUPS.find((g) => g === lower) ? ` (lower case: ${lower})` : '';
    throw new ApiError('INVALID_REQUEST', `group must be one of ${SERIES_GROUPS.join(', ')}${hint}.`, { param: 'group' });
  }
  return group;
}

/** `start`, a required calendar date, and `end`, an optional one (undefined: up to the newest publication), start on or before end. */
export function parseRange(query: { start?: unknown; end?: unknown }): { start: string; end: string | undefined } {
  const start = parseDate(query.start, 'start');
  if (start === undefined)
    throw new ApiError('INVALID_REQUEST', 'start is required: a calendar date written YYYY-MM-DD.', { param: 'start' });
  const end = parseDate(query.end, 'end');
  if (end !== undefined && end < start)
    throw new ApiError('INVALID_REQUEST', `end (${end}) must not be before start (${start}).`, { param: 'end' });
  return { start, end };
}
