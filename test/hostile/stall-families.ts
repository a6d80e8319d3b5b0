/**
 * The expensive families of requests the stall guard sends: spellings of the costliest expression
 * within the grammar's bounds (every one distinct, so no parse cache answers it), and the bodies
 * built from them. Deterministic: the i-th spelling is always the same text.
 */
const RADIANS = ['rad', 'radian', 'radians', 'Radian', 'RADIANS'];
const MILLIRADIANS = ['mrad', 'milliradian', 'milliradians', 'Milliradians'];
const SEPARATORS = ['*', '·', '⋅', '×', ' ', ' * ', ' · ', '\t*\t', '  ×  '];
const POWERS: [string, string][] = [
  ['^12', '^-12'],
  ['¹²', '⁻¹²'],
  ['^+12', '^-12'],
  ['^012', '^-012'],
];

/** The i-th distinct spelling of rad¹²·mrad⁻¹² (or of mrad⁻¹²·rad¹², every other one). */
export function radianSpelling(i: number): string {
  let n = i;
  const pick = <T>(list: readonly T[]): T => {
    const item = list[n % list.length]!;
    n = Math.floor(n / list.length);
    return item;
  };
  const rad = pick(RADIANS);
  const mrad = pick(MILLIRADIANS);
  const separator = pick(SEPARATORS);
  const [up, down] = pick(POWERS);
  const swapped = pick([false, true]);
  const padding = ' '.repeat(pick([0, 1, 2, 3]));
  const text = swapped ? `${mrad}${down}${separator}${rad}${up}` : `${rad}${up}${separator}${mrad}${down}`;
  return `${padding}${text}${padding}`;
}

export const SPELLINGS = 5 * 4 * 9 * 4 * 2 * 4;

/** A 40-digit value (digits varied by i, so no two items share an exact rational). */
export function fortyDigits(i: number): string {
  return `${String(1_000_000_007 + i).padStart(20, '9')}${'31415926535897932384'}`;
}
