/**
 * Exact numbers of the form q·π^k (q rational, k an integer): what a product of catalogue factors
 * is once radians occur (a radian is 180/π degrees). π stays a symbol through every product, so
 * rad·mrad⁻¹ is exactly 1000, and is substituted only when the value is printed.
 */
import { formatDecimal, formatFraction, pow10, type RoundingMode } from './decimal';
import { piBounds } from './pi';
import { Rational } from './rational';

export class PiRational {
  private constructor(
    /** The rational part. */
    readonly coefficient: Rational,
    /** The power of π; 0 for a rational. */
    readonly piPower: number,
  ) {}

  static readonly ONE = new PiRational(Rational.ONE, 0);

  static of(coefficient: Rational, piPower = 0): PiRational {
    if (!Number.isSafeInteger(piPower)) throw new RangeError(`PiRational.of expects an integer power of pi, got ${piPower}`);
    return new PiRational(coefficient, coefficient.isZero() ? 0 : piPower);
  }

  /** "180/pi", "0.18/pi" (catalogue factors) or a plain decimal or fraction. */
  static parse(text: string): PiRational {
    const overPi = /^(.+)\/pi$/.exec(text);
    return overPi ? PiRational.of(Rational.parse(overPi[1]!), -1) : PiRational.of(Rational.parse(text));
  }

  mul(other: PiRational | Rational): PiRational {
    if (other instanceof Rational) return PiRational.of(this.coefficient.mul(other), this.piPower);
    return PiRational.of(this.coefficient.mul(other.coefficient), this.piPower + other.piPower);
  }

  /** Division by zero is a RangeError, as Rational's. */
  div(other: PiRational | Rational): PiRational {
    if (other instanceof Rational) return PiRational.of(this.coefficient.div(other), this.piPower);
    return PiRational.of(this.coefficient.div(other.coefficient), this.piPower - other.piPower);
  }

  pow(e: number): PiRational {
    return PiRational.of(this.coefficient.pow(e), this.piPower * e);
  }

  isZero(): boolean {
    return this.coefficient.isZero();
  }

  equals(other: PiRational): boolean {
    return this.piPower === other.piPower && this.coefficient.equals(other.coefficient);
  }

  /** "n/d", or "n/d·pi^k": for logs and test failures, not for API output. */
  toString(): string {
    return this.piPower === 0 ? this.coefficient.toString() : `${this.coefficient}·pi^${this.piPower}`;
  }
}

/** q·(π bound)^k over a common power of ten, for both bounds of π: two fractions that enclose q·π^k. */
function enclosure(q: Rational, k: number, places: number): [bigint, bigint][] {
  const { low, high } = piBounds(places);
  const n = BigInt(Math.abs(k));
  const scale = pow10(places) ** n;
  // For k < 0, q·π^k = q·10^(places·|k|) / (π·10^places)^|k|.
  return [low, high].map((p): [bigint, bigint] => (k > 0 ? [q.num * p ** n, q.den * scale] : [q.num * scale, q.den * p ** n]));
}

/** Decimal places of π that bound q·π^k to about `wanted` significant digits (a first guess). */
function placesFor(q: Rational, k: number, decimals: number | undefined): number {
  const magnitude = q.num.toString().length - q.den.toString().length + Math.ceil(k * Math.log10(Math.PI)) + 1;
  const wanted = decimals === undefined ? 40 : Math.max(0, magnitude + decimals);
  return wanted + Math.abs(k).toString().length + 10;
}

/**
 * The contract's printed value of q·π^k (formatDecimal's rules), proven: π lies strictly between
 * two bounds, every rounding rule is monotone, so when both bounds of the value print the same
 * digits the value itself prints them. Otherwise π is taken to twice as many places. For k ≠ 0 the
 * value is irrational, so it is never the tie or boundary a rounding rule could land on, and the
 * enclosure, shrinking around it, soon prints one way.
 */
export function formatPiRational(x: PiRational, decimals?: number, rounding: RoundingMode = 'HALF_UP'): string {
  const { coefficient: q, piPower: k } = x;
  if (k === 0) return formatDecimal(q, decimals, rounding);
  for (let places = placesFor(q, k, decimals); ; places *= 2) {
    const [[lowNum, lowDen], [highNum, highDen]] = enclosure(q, k, places) as [[bigint, bigint], [bigint, bigint]];
    const printed = formatFraction(lowNum, lowDen, decimals, rounding);
    if (formatFraction(highNum, highDen, decimals, rounding) === printed) return printed;
  }
}
