/**
 * The contract's number rules (section 3): strict parsing of `value`, `decimals` and `rounding`,
 * and printing an exact Rational rounded once. Pure BigInt: no floating point anywhere.
 */
import { ApiError } from './errors';
import { Rational } from './rational';

export const ROUNDING_MODES = ['HALF_UP', 'HALF_EVEN', 'DOWN', 'UP', 'FLOOR', 'CEILING'] as const;
export type RoundingMode = (typeof ROUNDING_MODES)[number];

export const MAX_DECIMALS = 40;
export const MAX_SIGNIFICANT_DIGITS = 40;

/** ASCII digits only (`\d` never matches other scripts in JS); no exponent, `+` or separators. */
export const DECIMAL_PATTERN = /^-?\d{1,40}(\.\d{1,40})?$/;
/** "-" + 40 digits + "." + 40 digits: anything longer is refused before a regex sees it. */
const MAX_VALUE_LENGTH = 82;
const EXAMPLE = '"12.5"';

const EXPONENT_FORM = /^[-+]?(\d+(\.\d*)?|\.\d+)[eE][-+]?\d+$/;
const GROUPED_THOUSANDS = /^-?\d{1,3}(,\d{3})+(\.\d+)?$/;
const DECIMAL_COMMA = /^-?\d+,\d+$/;
const DIGITS = /^-?(\d+)(?:\.(\d+))?$/;

/** The shape of a decimal input, as every message about a malformed one states it. */
export const DECIMAL_SHAPE = 'an optional "-", 1 to 40 digits, then optionally "." and 1 to 40 digits';

/**
 * What is wrong with a value that is not decimal text, when it is a common mistake: more than 40
 * digits on a side, exponent notation, a decimal comma or grouped thousands; undefined otherwise.
 * Echoes digits only (what it suggests is made of the input's digits).
 */
export function decimalTextMistake(value: string): string | undefined {
  if (value.length > 200) return `it has ${value.length} characters`;
  if (EXPONENT_FORM.test(value)) return 'exponent notation (such as 1e30) is not accepted: write every digit out';
  if (GROUPED_THOUSANDS.test(value)) return `thousands separators are not accepted: write ${value.replaceAll(',', '')}`;
  if (DECIMAL_COMMA.test(value)) return `the decimal separator is a point, not a comma: write ${value.replace(',', '.')}`;
  const digits = DIGITS.exec(value);
  if (digits === null) return undefined;
  const [, whole = '', fraction = ''] = digits;
  if (whole.length > 40) return `it has ${whole.length} digits before the point, at most 40`;
  if (fraction.length > 40) return `it has ${fraction.length} digits after the point, at most 40`;
  return undefined;
}

/** Says what a decimal input is, and what is wrong with this one when that is a common mistake. */
export function decimalTextRule(value: string, subject: string): string {
  const mistake = decimalTextMistake(value);
  return `${subject} ${DECIMAL_SHAPE}${mistake === undefined ? '' : `; ${mistake}`}.`;
}

/** True for a value the contract accepts as input (length checked before the regex runs). */
export function isDecimalText(value: string): boolean {
  return value.length <= MAX_VALUE_LENGTH && DECIMAL_PATTERN.test(value);
}

export function parseDecimalValue(value: unknown, param = 'value'): Rational {
  if (typeof value === 'number') {
    throw new ApiError('INVALID_REQUEST', `${param} must be a decimal string such as ${EXAMPLE}, not a JSON number.`, { param });
  }
  if (typeof value !== 'string') {
    const what = value === undefined || value === null ? 'is required' : 'must be a string';
    throw new ApiError('INVALID_REQUEST', `${param} ${what}: a decimal string such as ${EXAMPLE}.`, { param });
  }
  if (!isDecimalText(value)) {
    throw new ApiError('INVALID_REQUEST', decimalTextRule(value, `${param} must be a decimal string:`), { param });
  }
  return Rational.parse(value);
}

/** Why `value` is not a number of decimals, or undefined when it is: the one rule, and its one message, for REST, GraphQL and batch items. */
export function decimalsProblem(value: unknown, param = 'decimals'): string | undefined {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_DECIMALS) return undefined;
  return `${param} must be an integer from 0 to ${MAX_DECIMALS}.`;
}

export function parseDecimals(value: unknown, param = 'decimals'): number | undefined {
  if (value === undefined || value === null) return undefined;
  // Query strings deliver digits as text; bodies and GraphQL deliver numbers.
  const n = typeof value === 'string' && /^\d{1,2}$/.test(value) ? Number(value) : value;
  const problem = decimalsProblem(n, param);
  if (problem !== undefined) throw new ApiError('INVALID_REQUEST', problem, { param });
  return (n as number) + 0; // turns -0 into 0
}

export function parseRounding(value: unknown, param = 'rounding'): RoundingMode {
  if (value === undefined || value === null || value === 'HALF_UP') return 'HALF_UP';
  const upper = typeof value === 'string' && value.length <= 16 ? value.toUpperCase() : undefined;
  const mode = ROUNDING_MODES.find((m) => m === upper);
  if (mode === undefined) {
    throw new ApiError('INVALID_REQUEST', `${param} must be one of ${ROUNDING_MODES.join(', ')}.`, { param });
  }
  return mode;
}

/** The quotient n/d (n >= 0, d > 0) rounded to an integer; `negative` is the sign of the real value. */
function divideRounded(n: bigint, d: bigint, mode: RoundingMode, negative: boolean): bigint {
  const q = n / d;
  const r = n % d;
  if (r === 0n) return q;
  const twice = 2n * r;
  let up: boolean;
  switch (mode) {
    case 'HALF_UP':
      up = twice >= d;
      break;
    case 'HALF_EVEN':
      up = twice > d || (twice === d && q % 2n === 1n);
      break;
    case 'DOWN':
      up = false;
      break;
    case 'UP':
      up = true;
      break;
    case 'FLOOR':
      up = negative;
      break;
    case 'CEILING':
      up = !negative;
      break;
  }
  return up ? q + 1n : q;
}

const digitCount = (n: bigint): number => n.toString().length;
/** 10^0 … 10^127 built once: formatting asks for powers of ten several times per result. */
const POWERS_OF_TEN: readonly bigint[] = Array.from({ length: 128 }, (_, k) => 10n ** BigInt(k));
/** 10^k for k >= 0. */
export const pow10 = (k: number): bigint => POWERS_OF_TEN[k] ?? 10n ** BigInt(k);

/** The decimal exponent e with 10^(e-1) <= a/den < 10^e (a > 0, den > 0), from digit lengths plus one comparison. */
function decimalExponent(a: bigint, den: bigint): number {
  const k = digitCount(a) - digitCount(den); // a/den lies in (10^(k-1), 10^(k+1))
  const atLeast10k = k >= 0 ? a >= den * pow10(k) : a * pow10(-k) >= den;
  return atLeast10k ? k + 1 : k;
}

/** Prints `magnitude * 10^-scale`; never "-0". */
function printScaled(negative: boolean, magnitude: bigint, scale: number, dropTrailingZeros: boolean): string {
  const sign = negative && magnitude !== 0n ? '-' : '';
  if (scale <= 0) return sign + (magnitude * pow10(-scale)).toString();
  const digits = magnitude.toString().padStart(scale + 1, '0');
  const int = digits.slice(0, -scale);
  let frac = digits.slice(-scale);
  if (dropTrailingZeros) {
    let end = frac.length;
    while (end > 0 && frac.charCodeAt(end - 1) === 48 /* 0 */) end -= 1;
    if (end < frac.length) frac = frac.slice(0, end);
  }
  return sign + int + (frac === '' ? '' : `.${frac}`);
}

/** Places tried by shortExact: most results of the catalogue's factors terminate within them (12.5 in = 31.75 cm). */
const SHORT_PLACES = 4;

/**
 * A value that terminates within SHORT_PLACES places and 40 significant digits, printed exactly
 * (the fewest places, so no trailing zero), or undefined. What the 40-digit path prints for it
 * (rounding it to 40 significant digits changes nothing), without that path's 40-digit division
 * and the zeros it then drops.
 */
function shortExact(negative: boolean, a: bigint, den: bigint): string | undefined {
  for (let places = 0; places <= SHORT_PLACES; places++) {
    const n = a * pow10(places);
    if (n % den !== 0n) continue;
    const digits = (n / den).toString();
    if (digits.length > MAX_SIGNIFICANT_DIGITS) return undefined;
    const sign = negative ? '-' : '';
    if (places === 0) return sign + digits;
    const padded = digits.padStart(places + 1, '0');
    return `${sign}${padded.slice(0, -places)}.${padded.slice(-places)}`;
  }
  return undefined;
}

/**
 * Prints an exact value by the contract's rule. With `decimals`: rounded once with `rounding`
 * and printed with exactly that many places. Without: exact when it terminates within 40
 * significant digits, else rounded half-even to 40 significant digits (rounding to 40 digits
 * is a no-op for the former, so one path serves both); trailing zeros dropped.
 */
export function formatDecimal(r: Rational, decimals?: number, rounding: RoundingMode = 'HALF_UP'): string {
  return formatFraction(r.num, r.den, decimals, rounding);
}

/**
 * formatDecimal of num/den, which need not be in lowest terms (den > 0): every step works on the
 * value, not on its representation (a divisibility test, digit lengths with one comparison, a
 * quotient and its remainder against den), so num·g/den·g prints as num/den does. It spares the
 * conversion fast path the greatest common divisor of two large products (Rational.of) for a value
 * it only prints, once per item of a batch.
 */
export function formatFraction(num: bigint, den: bigint, decimals?: number, rounding: RoundingMode = 'HALF_UP'): string {
  if (den <= 0n) throw new RangeError('formatFraction needs a positive denominator');
  const negative = num < 0n;
  const a = negative ? -num : num;
  if (decimals !== undefined) {
    if (!Number.isInteger(decimals) || decimals < 0 || decimals > MAX_DECIMALS) {
      throw new RangeError(`decimals must be an integer from 0 to ${MAX_DECIMALS}, got ${decimals}`);
    }
    const scaled = divideRounded(a * pow10(decimals), den, rounding, negative);
    return printScaled(negative, scaled, decimals, false);
  }
  if (a === 0n) return '0';
  const short = shortExact(negative, a, den);
  if (short !== undefined) return short;
  const scale = MAX_SIGNIFICANT_DIGITS - decimalExponent(a, den);
  const scaled =
    scale >= 0 ? divideRounded(a * pow10(scale), den, 'HALF_EVEN', negative) : divideRounded(a, den * pow10(-scale), 'HALF_EVEN', negative);
  return printScaled(negative, scaled, scale, true);
}

/**
 * formatDecimal of n / 10^scale (scale >= 0): what a conversion between units defined by terminating
 * decimals gives (digits × a factor scaled to a power of ten, see conversion.ts), printed from the
 * digits of n alone where that is exact: without `decimals` when the value has at most 40
 * significant digits, with `decimals` when they are at least `scale`. Anything else (rounding) is
 * formatFraction's: the same printed value either way, tested against it.
 */
export function formatScaled(n: bigint, scale: number, decimals?: number, rounding: RoundingMode = 'HALF_UP'): string {
  if (!Number.isInteger(scale) || scale < 0) throw new RangeError(`scale must be an integer >= 0, got ${scale}`);
  // Rounding to fewer places (or a decimals formatFraction refuses) is formatFraction's.
  if (decimals !== undefined && (decimals < scale || !Number.isInteger(decimals) || decimals > MAX_DECIMALS))
    return formatFraction(n, pow10(scale), decimals, rounding);
  if (n === 0n) return decimals === undefined ? '0' : formatFraction(0n, 1n, decimals, rounding);
  const negative = n < 0n;
  const digits = (negative ? -n : n).toString();
  let end = digits.length;
  let places = scale;
  if (decimals === undefined) {
    // Trailing zeros of the fraction are dropped; 40 significant digits or fewer print exactly.
    while (places > 0 && digits.charCodeAt(end - 1) === 48 /* 0 */) {
      end -= 1;
      places -= 1;
    }
    if (end > MAX_SIGNIFICANT_DIGITS) return formatFraction(n, pow10(scale), undefined, rounding);
  }
  const kept = end < places + 1 ? '0'.repeat(places + 1 - end) + digits.slice(0, end) : digits.slice(0, end);
  const sign = negative ? '-' : '';
  const int = kept.slice(0, kept.length - places);
  const frac = kept.slice(kept.length - places) + (decimals === undefined ? '' : '0'.repeat(decimals - places));
  return frac === '' ? sign + int : `${sign}${int}.${frac}`;
}
