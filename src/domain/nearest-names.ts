/**
 * "Did you mean …?": names near a name that is not known, by Damerau-Levenshtein distance (optimal
 * string alignment: a swap of two neighbours costs one, so GPB is one edit from GBP), within a
 * number of edits that grows with the name's length. Unit names (units/expression/suggest.ts),
 * currency codes and parameter names are all suggested by these rules.
 */

/** How many edits may separate a name of `length` characters from a suggestion. */
export function allowedDistance(length: number): number {
  return length <= 2 ? 0 : length <= 5 ? 1 : length <= 9 ? 2 : 3;
}

/** Optimal string alignment distance, or limit + 1 as soon as it must exceed `limit`. */
export function editDistance(a: readonly string[], b: readonly string[], limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      current.push(d);
      best = Math.min(best, d);
    }
    if (best > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}

/** Longer names are not compared: nothing suggested is near them, and the work stays small. */
const MAX_COMPARED_LENGTH = 40;

/**
 * Up to `max` of `candidates` near `name`, compared without case, nearest first, ties in the
 * candidates' order; nothing when none is near (for one or two characters: equal but for case).
 */
export function nearestNames(name: string, candidates: Iterable<string>, max = 3): string[] {
  const chars = Array.from(name.toLowerCase());
  if (chars.length === 0 || chars.length > MAX_COMPARED_LENGTH) return [];
  const limit = allowedDistance(chars.length);
  const near: { candidate: string; distance: number; order: number }[] = [];
  let order = 0;
  for (const candidate of candidates) {
    const distance = editDistance(chars, Array.from(candidate.toLowerCase()), limit);
    if (distance <= limit) near.push({ candidate, distance, order });
    order += 1;
  }
  return near
    .sort((a, b) => a.distance - b.distance || a.order - b.order)
    .slice(0, max)
    .map((n) => n.candidate);
}

/** " (did you mean GBP?)", " (did you mean a, b or c?)", or "" when nothing is near. */
export function didYouMean(suggestions: readonly string[]): string {
  if (suggestions.length === 0) return '';
  const list =
    suggestions.length === 1 ? suggestions[0]! : `${suggestions.slice(0, -1).join(', ')} or ${suggestions[suggestions.length - 1]!}`;
  return ` (did you mean ${list}?)`;
}
