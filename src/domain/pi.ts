/**
 * Bounds on π to any number of decimal places, from Machin's formula on BigInt
 * (π = 16·atan(1/5) − 4·atan(1/239)), with every truncation counted in the error, so the bounds
 * are proven, not estimated. The widest bounds computed so far are kept and cut down for fewer
 * places, so each precision is computed at most once per doubling.
 */
import { pow10 } from './decimal';

/** low < π·10^places < high, with high − low at most 3. */
export interface PiBounds {
  readonly places: number;
  readonly low: bigint;
  readonly high: bigint;
}

/** Guard digits: the summed truncation errors (a few units per term) stay far below 10^GUARD. */
const GUARD = 12;

/** atan(1/x)·scale to within `terms` × 2 + 1 units, and how many terms that took. */
function atanInverse(x: bigint, scale: bigint): { value: bigint; terms: number } {
  const xSquared = x * x;
  let power = scale / x; // scale / x^(2i+1), truncated: error < 1, shrinking as it is divided further
  let value = 0n;
  let terms = 0;
  for (let i = 0n; power !== 0n; i += 1n) {
    const term = power / (2n * i + 1n);
    value += i % 2n === 0n ? term : -term;
    power /= xSquared;
    terms += 1;
  }
  return { value, terms };
}

function computeBounds(places: number): PiBounds {
  const scale = pow10(places + GUARD);
  const five = atanInverse(5n, scale);
  const big = atanInverse(239n, scale);
  const approx = 16n * five.value - 4n * big.value;
  const error = BigInt(16 * (2 * five.terms + 2) + 4 * (2 * big.terms + 2));
  const unit = pow10(GUARD);
  const low = (approx - error) / unit; // both operands positive: division truncates down
  const high = (approx + error) / unit + 1n;
  return { places, low, high };
}

let widest: PiBounds = computeBounds(64);

/** Proven bounds on π·10^places (places >= 0). */
export function piBounds(places: number): PiBounds {
  if (!Number.isSafeInteger(places) || places < 0) throw new RangeError(`piBounds expects places >= 0, got ${places}`);
  if (places > widest.places) widest = computeBounds(Math.max(places, 2 * widest.places));
  if (places === widest.places) return widest;
  const cut = pow10(widest.places - places);
  return { places, low: widest.low / cut, high: (widest.high + cut - 1n) / cut };
}
