/**
 * The synchronous work of a request, estimated from its text before anything is parsed or
 * computed. A conversion's exact arithmetic grows with the digits of its value and with the terms
 * of its units (each name raised to its power is that many factors multiplied together), so one
 * conversion is estimated as value digits × expression terms, and a request as the sum over its
 * conversions. The estimate is an upper bound of the terms the grammar lets an expression reach.
 */
import { looksLikeCurrencyCode } from './currency/codes';
import { findUnit } from './units/lookup';
import { MAX_EXPONENT, MAX_EXPRESSION_LENGTH, MAX_FACTORS } from './units/expression/limits';

/** The most digits a valid value has (contract section 3: 40 integer and 40 fraction digits). */
const MAX_VALUE_DIGITS = 80;

/**
 * Most estimated work in one request. A batch of 1,000 catalogue conversions of 80-digit values is
 * 160,000; 1,000 expressions of 24 terms (`rad^12*mrad^-12` to `kg`) with 40-digit values are
 * 1,000,000; one expression at the grammar's bounds with an 80-digit value is about 31,000.
 */
export const MAX_REQUEST_WORK = 1_000_000;

/** What a conversion is estimated from: its value and both ends, as received (types not yet checked). */
export interface WorkItem {
  readonly value: unknown;
  readonly from: unknown;
  readonly to: unknown;
}

const NAME = /\p{L}+/gu;
const CARET_EXPONENT = /\^\s*[-+−]?\s*(\d+)/g;
const SUPERSCRIPT_EXPONENT = /[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+/g;
const SUPERSCRIPT_DIGITS = '⁰¹²³⁴⁵⁶⁷⁸⁹';

/**
 * The terms of one end: 1 for a catalogue unit or a currency code; for an expression, its names
 * (at most MAX_FACTORS) times the product of the exponents written in it (at most MAX_EXPONENT,
 * which no factor may pass), so `(m^4)^3` counts 12 and `m^12/s^12` counts 24. A text longer than
 * the grammar allows counts 1: it is refused before any work.
 */
export function expressionTerms(text: unknown): number {
  if (typeof text !== 'string' || findUnit(text) !== undefined || looksLikeCurrencyCode(text) || beyondLength(text)) return 1;
  const names = Math.min(MAX_FACTORS, text.match(NAME)?.length ?? 0);
  let power = 1;
  for (const match of text.matchAll(CARET_EXPONENT)) power = Math.min(MAX_EXPONENT, power * Math.max(1, Number(match[1])));
  for (const match of text.matchAll(SUPERSCRIPT_EXPONENT)) power = Math.min(MAX_EXPONENT, power * Math.max(1, superscriptValue(match[0])));
  return Math.max(1, names * power);
}

const beyondLength = (text: string): boolean => text.length > MAX_EXPRESSION_LENGTH && [...text].length > MAX_EXPRESSION_LENGTH;

function superscriptValue(written: string): number {
  let value = 0;
  for (const char of written) {
    const digit = SUPERSCRIPT_DIGITS.indexOf(char);
    if (digit >= 0) value = Math.min(1_000_000, value * 10 + digit);
  }
  return value;
}

/**
 * The digits of a value, at least 1. A value that is not a string, or has more digits than a valid
 * value, counts 1: it is refused before any work.
 */
export function valueDigits(value: unknown): number {
  if (typeof value !== 'string') return 1;
  let digits = 0;
  for (let i = 0; i < value.length; i += 1) {
    const code = value.charCodeAt(i);
    if (code >= 48 && code <= 57) digits += 1;
  }
  return digits > MAX_VALUE_DIGITS ? 1 : Math.max(1, digits);
}

/** One conversion's estimated work: value digits × (terms of `from` + terms of `to`). */
export function conversionWork(item: WorkItem): number {
  return valueDigits(item.value) * (expressionTerms(item.from) + expressionTerms(item.to));
}

/** The estimated work of several conversions, stopping once it is past MAX_REQUEST_WORK. */
export function requestWork(items: readonly WorkItem[]): number {
  let total = 0;
  for (const item of items) {
    total += conversionWork(item);
    if (total > MAX_REQUEST_WORK) break;
  }
  return total;
}
