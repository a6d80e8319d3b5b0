import type { SourcePublication } from './types';

/** What a batch of publications changes in what is stored. */
export interface PublicationChanges {
  /** The publications to write: new days and corrected ones, each day once (the batch's last wins). */
  changed: SourcePublication[];
  added: number;
  replaced: number;
}

const keyOf = (pub: SourcePublication) => `${pub.source}\u0000${pub.table}\u0000${pub.date}`;

/** Same base and exactly the same figures (value, units, direction) for the same codes. */
export function samePublication(a: SourcePublication, b: SourcePublication): boolean {
  const codes = Object.keys(a.figures);
  if (a.base !== b.base || codes.length !== Object.keys(b.figures).length) return false;
  return codes.every((code) => {
    const [x, y] = [a.figures[code]!, b.figures[code]];
    return y !== undefined && x.value === y.value && x.units === y.units && x.direction === y.direction;
  });
}

/**
 * Compares `incoming` with `stored`: a day not stored is added, a day stored with other figures is
 * replaced (a publisher's correction), a day stored as it is changes nothing. A day repeated in the
 * batch (two files of one fetch overlapping) counts once, its last copy.
 */
export function publicationChanges(stored: Iterable<SourcePublication>, incoming: readonly SourcePublication[]): PublicationChanges {
  const held = new Map<string, SourcePublication>();
  for (const pub of stored) held.set(keyOf(pub), pub);
  const latest = new Map<string, SourcePublication>();
  for (const pub of incoming) latest.set(keyOf(pub), pub);
  const changes: PublicationChanges = { changed: [], added: 0, replaced: 0 };
  for (const [key, pub] of latest) {
    const before = held.get(key);
    if (before && samePublication(before, pub)) continue;
    changes.changed.push(pub);
    if (before) changes.replaced++;
    else changes.added++;
  }
  return changes;
}
