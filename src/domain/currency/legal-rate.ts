import { formatDecimal } from '../decimal';
import type { Publication } from '../ecb';
import { Rational } from '../rational';
import { RATE_SOURCE, rateOf } from './published-rate';
import { successionOn, type Succession } from './successions';

/** Units of a currency per euro on a day: the ECB's published rate, or the law's through a successor. */
export interface EuroRate {
  readonly perEuro: Rational;
  /** The successions the rate went through, oldest currency first (none for a published rate). */
  readonly fixed: readonly Succession[];
  /** The code whose published rate ends the chain (EUR when the chain needs no publication). */
  readonly published: string;
}

/**
 * The rate of `code` on `day` (the day asked for, not the publication's): once the law replaced a
 * currency, its fixed rate to the successor times the successor's own rate (a successor replaced in
 * turn is followed); before that, the ECB's published rate, RATE_NOT_FOUND when not quoted.
 */
export function euroRate(publication: Publication, code: string, day: string, param: string): EuroRate {
  const succession = successionOn(code, day);
  if (succession === undefined) {
    return { perEuro: Rational.parse(rateOf(publication, code, param)), fixed: [], published: code };
  }
  const next = euroRate(publication, succession.successor, day, param);
  return { perEuro: Rational.parse(succession.rate).mul(next.perEuro), fixed: [succession, ...next.fixed], published: next.published };
}

/** The code whose published rate `code` needs on `day`: itself, or its successor's once the law replaced it. */
export function publishedCodeOn(code: string, day: string): string {
  const succession = successionOn(code, day);
  return succession === undefined ? code : publishedCodeOn(succession.successor, day);
}

/**
 * What a rate made of euro rates rests on (`rates` of the same money on both sides): "ecb" when on
 * published rates only, the legal acts when on fixed rates only, both, separated by "; ", when on
 * both. Rates that all end on the same published code cancel it: HRK to EUR, or ROL to RON, rests
 * on the law alone.
 */
export function rateSource(rates: readonly EuroRate[]): string {
  const published = new Set(rates.map((r) => r.published)).size > 1;
  const acts = [...new Set(rates.flatMap((r) => r.fixed.map((s) => s.source)))];
  return [...(published || acts.length === 0 ? [RATE_SOURCE] : []), ...acts].join('; ');
}

/** The successions of `rates`, each once, in order. */
export function fixedRates(rates: readonly EuroRate[]): Succession[] {
  return [...new Map(rates.flatMap((r) => r.fixed).map((s) => [s.code, s])).values()];
}

/**
 * Units of each code per euro on `day`, as answers show them (sorted by code): the ECB's string as
 * published, or, for a currency the law replaced, its fixed rate times its successor's, exactly.
 */
export function shownEuroRates(publication: Publication, codes: readonly string[], day: string): Record<string, string> {
  return Object.fromEntries(
    [...new Set(codes)].sort().map((code) => {
      const rate = euroRate(publication, code, day, 'from');
      return [code, code === rate.published ? rateOf(publication, code, 'from') : formatDecimal(rate.perEuro)];
    }),
  );
}
