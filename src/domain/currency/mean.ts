import { formatFraction, type RoundingMode } from '../decimal';

/**
 * An exact running sum of fractions, kept as ONE unreduced fraction: no greatest common divisor per
 * step (a year of cross rates would otherwise reduce numbers of a thousand digits 255 times). A
 * term whose denominator divides the sum's (powers of ten, a base rate seen before) costs one
 * multiplication by a small factor; only a new denominator grows the sum's. The mean is printed
 * from sum / count by formatFraction, which needs no lowest terms: rounded once, at the end.
 */
export class ExactSum {
  private num = 0n;
  private den = 1n;
  private n = 0;

  add(num: bigint, den: bigint): void {
    if (den <= 0n) throw new RangeError('ExactSum.add needs a positive denominator');
    this.n += 1;
    if (this.den % den === 0n) {
      this.num += num * (this.den / den);
    } else if (den % this.den === 0n) {
      this.num = this.num * (den / this.den) + num;
      this.den = den;
    } else {
      this.num = this.num * den + num * this.den;
      this.den *= den;
    }
  }

  get count(): number {
    return this.n;
  }

  /** The exact mean as an unreduced fraction [num, den]; the caller checks count > 0. */
  meanFraction(): [bigint, bigint] {
    if (this.n === 0) throw new RangeError('the mean of no terms');
    return [this.num, this.den * BigInt(this.n)];
  }

  /**
   * The mean printed by the contract's unrounded rule (exact within 40 significant digits, else
   * half-even to 40), or rounded once to `decimals` places with `rounding`.
   */
  formatMean(decimals?: number, rounding?: RoundingMode): string {
    const [num, den] = this.meanFraction();
    return formatFraction(num, den, decimals, rounding);
  }
}
