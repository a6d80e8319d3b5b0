import type { Rational } from '../rational';
import { SOURCES } from './catalog';
import { unitsPerBase, type ResolvedFigure } from './history';
import type { SourceId } from './types';

/** One source's step of a conversion: its two figures, against one base, and the rate they make. */
export interface SourceLeg {
  readonly source: SourceId;
  readonly from: ResolvedFigure;
  readonly to: ResolvedFigure;
  /** Units of `to` per one unit of `from`, exactly: unitsPerBase(to) ÷ unitsPerBase(from). */
  readonly rate: Rational;
}

/** How a conversion is priced: one source's figures, or two sources joined through a currency both quote. */
export interface SourceRoute {
  readonly legs: readonly [SourceLeg] | readonly [SourceLeg, SourceLeg];
  /** The currency the two legs meet in; absent for one leg. */
  readonly via?: string;
  /** Units of the target per one unit of the origin, exactly: the product of the legs' rates. */
  readonly rate: Rational;
}

/** The figures of two currencies from one source, against one base, on the day being priced. */
export type PairLookup = (source: SourceId, from: string, to: string) => readonly [ResolvedFigure, ResolvedFigure] | undefined;

/** The currencies two legs may meet in, in this order: the dollar and the euro, then each source's base. */
export const VIA_ORDER: readonly string[] = Object.freeze([...new Set(['USD', 'EUR', ...SOURCES.map((s) => s.base)])]);

/** The leg of `source` from `from` to `to`, or undefined when it does not quote both. */
export function legOf(pair: PairLookup, source: SourceId, from: string, to: string): SourceLeg | undefined {
  const figures = pair(source, from, to);
  if (!figures) return undefined;
  const [a, b] = figures;
  return { source, from: a, to: b, rate: unitsPerBase(b.figure).div(unitsPerBase(a.figure)) };
}

/**
 * The route of a conversion over `order` (contract §13): the first source quoting both currencies;
 * otherwise the first pair of sources (each in order) joined through the first currency of
 * VIA_ORDER both quote. Never an average: each figure is one publisher's. Undefined when none.
 */
export function chooseRoute(pair: PairLookup, order: readonly SourceId[], from: string, to: string): SourceRoute | undefined {
  for (const source of order) {
    const leg = legOf(pair, source, from, to);
    if (leg) return { legs: [leg], rate: leg.rate };
  }
  // Each leg is looked up once, though the search below asks for most of them once per pair of sources.
  const legs = new Map<string, SourceLeg | undefined>();
  const leg = (source: SourceId, a: string, b: string): SourceLeg | undefined => {
    const key = `${source}\u0000${a}\u0000${b}`;
    if (!legs.has(key)) legs.set(key, legOf(pair, source, a, b));
    return legs.get(key);
  };
  for (const first of order) {
    for (const second of order) {
      if (first === second) continue;
      for (const via of VIA_ORDER) {
        if (via === from || via === to) continue;
        const one = leg(first, from, via);
        const two = one && leg(second, via, to);
        if (one && two) return { legs: [one, two], via, rate: one.rate.mul(two.rate) };
      }
    }
  }
  return undefined;
}

/** The sources of `order` that quote both currencies on the day (what a RATE_NOT_FOUND names). */
export function sourcesQuoting(pair: PairLookup, order: readonly SourceId[], from: string, to: string): SourceId[] {
  return order.filter((source) => pair(source, from, to) !== undefined);
}
