/**
 * "Did you mean kilometer?": the catalogue names (ids, symbols, aliases) closest to an unknown
 * name, by Damerau-Levenshtein distance (optimal string alignment: a swap of two neighbours costs
 * one), compared without case so that "Km" finds km. At most three, one per unit, nearest first;
 * nothing when nothing is close, which for a name of one or two characters means equal but for case.
 */
import { allowedDistance, editDistance } from '../../nearest-names';
import { ALIASES } from '../aliases';
import { UNITS, type UnitDef } from '../catalogue';

export { allowedDistance, editDistance } from '../../nearest-names';

export const MAX_SUGGESTIONS = 3;
/** Longer names are not compared: no catalogue name is near them, and the work stays small. */
const MAX_COMPARED_LENGTH = 40;

interface Candidate {
  readonly text: string;
  readonly chars: readonly string[];
  readonly unit: UnitDef;
  /** Position among the unit's names: its id first, then its symbol, then its aliases. */
  readonly rank: number;
}

const CANDIDATES: readonly Candidate[] = UNITS.flatMap((unit) =>
  [unit.id, unit.symbol, ...(ALIASES[unit.id] ?? [])].map((text, rank) => ({ text, chars: Array.from(text.toLowerCase()), unit, rank })),
);
const UNIT_ORDER = new Map(UNITS.map((u, i) => [u, i]));

/** "kilometer", or "km (kilometer)" when the closest name is not the id. */
const shown = (c: Candidate): string => (c.rank === 0 ? c.text : `${c.text} (${c.unit.id})`);

/**
 * Units whose symbol is a degree sign and letters, by those letters: "C" is one edit from nothing
 * (one-letter names get no near names), yet almost always means °C.
 */
const BY_DEGREE_LETTERS: ReadonlyMap<string, Candidate> = new Map(
  CANDIDATES.filter((c) => c.rank === 1 && c.text.startsWith('°') && c.text.length > 1).map((c) => [c.text.slice(1), c]),
);

/** The near names of `name`, best first; a degree unit written without its sign comes first. */
export function suggestUnits(name: string): string[] {
  const degree = BY_DEGREE_LETTERS.get(name);
  const near = nearUnits(name);
  if (degree === undefined) return near;
  return [shown(degree), ...near.filter((s) => !s.endsWith(`(${degree.unit.id})`) && s !== degree.unit.id)].slice(0, MAX_SUGGESTIONS);
}

function nearUnits(name: string): string[] {
  const written = Array.from(name);
  const chars = Array.from(name.toLowerCase());
  if (chars.length === 0 || chars.length > MAX_COMPARED_LENGTH) return [];
  const limit = allowedDistance(chars.length);
  const best = new Map<UnitDef, Scored>();
  for (const candidate of CANDIDATES) {
    const distance = editDistance(chars, candidate.chars, limit);
    if (distance > limit) continue;
    // Ties go to the name nearest in the caller's case ("mw": mW before MW only by catalogue order).
    const scored = { candidate, distance, caseDistance: editDistance(written, Array.from(candidate.text), chars.length) };
    const held = best.get(candidate.unit);
    if (held === undefined || compare(scored, held) < 0) best.set(candidate.unit, scored);
  }
  return [...best.values()]
    .sort(compare)
    .slice(0, MAX_SUGGESTIONS)
    .map((s) => shown(s.candidate));
}

interface Scored {
  candidate: Candidate;
  distance: number;
  caseDistance: number;
}

/** Nearest first, then nearest in case, then catalogue order, then id before symbol before alias. */
const compare = (a: Scored, b: Scored): number =>
  a.distance - b.distance ||
  a.caseDistance - b.caseDistance ||
  UNIT_ORDER.get(a.candidate.unit)! - UNIT_ORDER.get(b.candidate.unit)! ||
  a.candidate.rank - b.candidate.rank;
