/**
 * Catalogue factors and offsets as exact Rationals, parsed once at module load.
 */
import { PiRational } from '../pi-rational';
import { Rational } from '../rational';
import { UNITS, type UnitDef } from './catalogue';
import { PREFIXED_UNITS } from './prefixes';

/**
 * Pi truncated to 200 decimal places. Radian and milliradian are the only irrational units;
 * with this many digits the error of a result is about 10^-200 relative, far below the 40th
 * significant digit at which results are rounded, so the printed digits are those of the true
 * value. (A test checks this constant against decimal.js.)
 */
export const PI_DIGITS =
  '3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706798214808651328230664709384460955058223172535940812848111745028410270193852110555964462294895493038196';

export const PI = Rational.parse(PI_DIGITS);

/** "1200/3937", "0.0254" or "180/pi" to a Rational. */
export function parseFactor(text: string): Rational {
  const overPi = /^(.+)\/pi$/.exec(text);
  return overPi ? Rational.parse(overPi[1]!).div(PI) : Rational.parse(text);
}

interface UnitNumbers {
  /** The factor as one rational (π to PI_DIGITS): what a conversion between two catalogue units multiplies by. */
  readonly factor: Rational;
  /** The same factor exactly, π as a symbol: what unit expressions multiply, so radians cancel exactly. */
  readonly symbolic: PiRational;
  readonly offset: Rational;
}

const NUMBERS = new Map<string, UnitNumbers>(
  [...UNITS, ...PREFIXED_UNITS].map((u) => [
    u.id,
    { factor: parseFactor(u.factor), symbolic: PiRational.parse(u.factor), offset: Rational.parse(u.offset) },
  ]),
);

export function unitNumbers(unit: UnitDef): UnitNumbers {
  const numbers = NUMBERS.get(unit.id);
  if (numbers === undefined) throw new TypeError(`unitNumbers: ${unit.id} is not a catalogue unit`);
  return numbers;
}
