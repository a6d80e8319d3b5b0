/**
 * Exact rational numbers on BigInt. Every conversion is one exact rational expression that is
 * rounded once, when printed (see `formatDecimal`), so no intermediate ever loses a digit.
 */

const PLAIN_DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;
const FRACTION = /^(-?\d+)\/(\d+)$/;

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b < 0n ? -b : b;
  // Both exact as doubles: the same Euclid on numbers, without a BigInt allocation per step.
  if (x <= SAFE && y <= SAFE) {
    let p = Number(x);
    let q = Number(y);
    while (q !== 0) {
      const r = p % q;
      p = q;
      q = r;
    }
    return BigInt(p);
  }
  while (y !== 0n) {
    const r = x % y;
    x = y;
    y = r;
  }
  return x;
}

export class Rational {
  /** Numerator; carries the sign. */
  readonly num: bigint;
  /** Denominator; always > 0 and coprime with `num`. */
  readonly den: bigint;

  private constructor(num: bigint, den: bigint) {
    this.num = num;
    this.den = den;
  }

  static readonly ZERO = new Rational(0n, 1n);
  static readonly ONE = new Rational(1n, 1n);

  /** Reduces `num/den` and moves the sign to the numerator; a zero denominator is a RangeError. */
  static of(num: bigint, den: bigint = 1n): Rational {
    if (typeof num !== 'bigint' || typeof den !== 'bigint') {
      throw new TypeError(`Rational.of expects bigints, got ${typeof num} and ${typeof den}`);
    }
    if (den === 0n) throw new RangeError('Rational with a zero denominator');
    if (den < 0n) [num, den] = [-num, -den];
    const g = gcd(num, den);
    return g === 1n ? new Rational(num, den) : new Rational(num / g, den / g);
  }

  /**
   * Parses a trusted decimal ("-12.5") or fraction ("1200/3937"), as found in the catalogue.
   * Not for user input: that goes through `parseDecimalValue`, which bounds the length.
   */
  static parse(text: string): Rational {
    const decimal = PLAIN_DECIMAL.exec(text);
    if (decimal) {
      const [, sign, int, frac = ''] = decimal;
      const digits = BigInt(`${sign}${int}${frac}`);
      return Rational.of(digits, 10n ** BigInt(frac.length));
    }
    const fraction = FRACTION.exec(text);
    if (fraction) return Rational.of(BigInt(fraction[1]!), BigInt(fraction[2]!));
    throw new SyntaxError(`Not a decimal or fraction: ${JSON.stringify(text.slice(0, 80))}`);
  }

  add(other: Rational): Rational {
    return Rational.of(this.num * other.den + other.num * this.den, this.den * other.den);
  }

  sub(other: Rational): Rational {
    return this.add(other.neg());
  }

  /**
   * Both operands are in lowest terms, so only a numerator and the other's denominator can share a
   * factor: two gcds of the operands' parts (small) instead of one of the products (large), and
   * the result is in lowest terms without further reduction.
   */
  mul(other: Rational): Rational {
    if (this.num === 0n || other.num === 0n) return Rational.ZERO;
    const g = gcd(this.num, other.den);
    const h = gcd(other.num, this.den);
    return new Rational((this.num / g) * (other.num / h), (this.den / h) * (other.den / g));
  }

  /** Division by zero is a RangeError: callers check `isZero()` first and answer with their own error. */
  div(other: Rational): Rational {
    return this.mul(other.reciprocal());
  }

  /** 1/this; a RangeError for zero. Swapping coprime parts keeps them coprime: no gcd. */
  reciprocal(): Rational {
    if (this.num === 0n) throw new RangeError('Division of a Rational by zero');
    return this.num < 0n ? new Rational(-this.den, -this.num) : new Rational(this.den, this.num);
  }

  /** this^e for an integer e (0^e a RangeError for e < 0). Powers of coprime parts stay coprime: no gcd. */
  pow(e: number): Rational {
    if (!Number.isSafeInteger(e)) throw new RangeError(`Rational.pow expects an integer exponent, got ${e}`);
    const k = BigInt(Math.abs(e));
    const raised = new Rational(this.num ** k, this.den ** k);
    return e < 0 ? raised.reciprocal() : raised;
  }

  neg(): Rational {
    return new Rational(-this.num, this.den);
  }

  abs(): Rational {
    return this.num < 0n ? this.neg() : this;
  }

  sign(): -1 | 0 | 1 {
    return this.num < 0n ? -1 : this.num > 0n ? 1 : 0;
  }

  isZero(): boolean {
    return this.num === 0n;
  }

  /** -1, 0 or 1 as `this` is below, equal to or above `other`. */
  compare(other: Rational): -1 | 0 | 1 {
    const left = this.num * other.den;
    const right = other.num * this.den;
    return left < right ? -1 : left > right ? 1 : 0;
  }

  equals(other: Rational): boolean {
    return this.num === other.num && this.den === other.den;
  }

  /** "n/d" (or "n" for integers): for logs and test failures, not for API output. */
  toString(): string {
    return this.den === 1n ? this.num.toString() : `${this.num}/${this.den}`;
  }
}
