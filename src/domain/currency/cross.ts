import { formatFraction, pow10, type RoundingMode } from '../decimal';
import type { Publication } from '../ecb';
import type { Rational } from '../rational';

/** A published rate as an unreduced fraction digits / 10^places: "1.2340" is 12340/10^4. */
export interface ScaledRate {
  readonly digits: bigint;
  readonly scale: bigint;
}

const RATE_TEXT = /^(\d+)(?:\.(\d+))?$/;

/** A rate string of a publication (or "1" for EUR) as digits over a power of ten; the parsers checked its shape. */
export function scaledRate(text: string): ScaledRate {
  const m = RATE_TEXT.exec(text);
  if (!m) throw new TypeError(`not a published rate: ${JSON.stringify(text.slice(0, 40))}`);
  const frac = m[2] ?? '';
  return { digits: BigInt(m[1]! + frac), scale: pow10(frac.length) };
}

const EUR_RATE: ScaledRate = { digits: 1n, scale: 1n };

/** Units of `code` per euro on that publication, or undefined when it does not quote the code. */
export function publishedRate(publication: Publication, code: string): ScaledRate | undefined {
  if (code === 'EUR') return EUR_RATE;
  const text = publication.rates[code];
  return text === undefined ? undefined : scaledRate(text);
}

/**
 * rate(code) ÷ rate(base), times an optional amount, as ONE unreduced fraction [num, den]: nothing
 * is rounded here. (c/10^p) ÷ (b/10^q) × (a_n/a_d) = c·10^q·a_n / (10^p·b·a_d).
 */
export function crossFraction(rate: ScaledRate, base: ScaledRate, amount?: Rational): [bigint, bigint] {
  const num = rate.digits * base.scale;
  const den = rate.scale * base.digits;
  return amount === undefined ? [num, den] : [num * amount.num, den * amount.den];
}

export interface CrossOptions {
  amount?: Rational | undefined;
  decimals?: number | undefined;
  rounding?: RoundingMode | undefined;
}

/**
 * The printed cross rate (or amount): rounded once, by the contract's rule (section 3): with
 * `decimals`, to that many places with `rounding`; without, exact when it terminates within 40
 * significant digits, else half-even to 40 significant digits.
 */
export function formatCross(rate: ScaledRate, base: ScaledRate, options: CrossOptions = {}): string {
  const [num, den] = crossFraction(rate, base, options.amount);
  return formatFraction(num, den, options.decimals, options.rounding ?? 'HALF_UP');
}

/**
 * Whether a listing may show the ECB's own strings: base EUR, no amount, no rounding asked for.
 * The contract serves published rates exactly as published ("143.20" keeps its zero); any other
 * listing computes every value.
 */
export function servesPublishedStrings(base: string, options: CrossOptions): boolean {
  return base === 'EUR' && options.amount === undefined && options.decimals === undefined;
}
