import type { Publication } from './types';

// The update checks live in their own file to keep this one small; importable from here too.
export { validateUpdate, type UpdateCheckOptions } from './validate-update';

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A rate in a canonical form for comparison: the history CSV writes "143.2" where the XML writes "143.20". */
function canonicalRate(rate: string): string {
  const [whole = '', fraction = ''] = rate.split('.');
  const int = whole.replace(/^0+(?=\d)/, '');
  const frac = fraction.replace(/0+$/, '');
  return frac === '' ? int : `${int}.${frac}`;
}

/** Same day, same currencies, and the same rates as decimals (not as strings). */
export function samePublication(a: Publication, b: Publication): boolean {
  if (a.date !== b.date) return false;
  const codes = Object.keys(a.rates);
  if (codes.length !== Object.keys(b.rates).length) return false;
  return codes.every((code) => {
    const other = b.rates[code];
    return other !== undefined && canonicalRate(a.rates[code]!) === canonicalRate(other);
  });
}

function frozen(pub: Publication): Publication {
  if (Object.isFrozen(pub) && Object.isFrozen(pub.rates)) return pub;
  return Object.freeze({ date: pub.date, rates: Object.freeze({ ...pub.rates }) });
}

/** Sorted, frozen copies; a repeated or malformed date is a programming error, not a feed problem. */
function sortedUnique(pubs: readonly Publication[], caller: string): Publication[] {
  const sorted = pubs.map(frozen).sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  sorted.forEach((pub, i) => {
    if (!ISO_DATE.test(pub.date)) throw new TypeError(`${caller}: expected a YYYY-MM-DD date, got ${JSON.stringify(pub.date)}`);
    if (i > 0 && sorted[i - 1]!.date === pub.date) throw new TypeError(`${caller}: duplicate date ${pub.date}`);
  });
  return sorted;
}

/**
 * An immutable table of ECB publications, oldest first. Dates are YYYY-MM-DD, so string order is
 * date order and lookups are binary searches over plain strings.
 */
export class RateTable {
  private readonly publications: readonly Publication[];
  private readonly sortedDates: readonly string[];
  private readonly byDate: ReadonlyMap<string, Publication>;
  private currencies: ReadonlySet<string> | undefined;

  private constructor(sorted: Publication[]) {
    this.publications = Object.freeze(sorted);
    this.sortedDates = Object.freeze(sorted.map((pub) => pub.date));
    this.byDate = new Map(sorted.map((pub) => [pub.date, pub]));
  }

  /** Throws TypeError on a repeated or malformed date (the parsers never produce one). */
  static from(pubs: readonly Publication[]): RateTable {
    return new RateTable(sortedUnique(pubs, 'RateTable.from'));
  }

  get latest(): Publication | undefined {
    return this.publications.at(-1);
  }

  get size(): number {
    return this.publications.length;
  }

  /** The publication of exactly that day, if the ECB published one. */
  get(date: string): Publication | undefined {
    return this.byDate.get(date);
  }

  /**
   * The latest publication on or before `date` (weekends and TARGET holidays fall back to the last
   * working day), or undefined before the first one. `date` must be YYYY-MM-DD; the caller checks
   * that it is a real calendar day.
   */
  resolve(date: string): Publication | undefined {
    if (!ISO_DATE.test(date)) throw new TypeError(`RateTable.resolve: expected a YYYY-MM-DD date, got ${JSON.stringify(date)}`);
    let low = 0;
    let high = this.sortedDates.length; // answer index is low - 1 once low === high
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.sortedDates[mid]! <= date) low = mid + 1;
      else high = mid;
    }
    return low === 0 ? undefined : this.publications[low - 1];
  }

  /** Every code ever quoted, plus EUR. */
  knownCurrencies(): ReadonlySet<string> {
    if (!this.currencies) {
      const codes = new Set<string>(['EUR']);
      for (const pub of this.publications) for (const code of Object.keys(pub.rates)) codes.add(code);
      this.currencies = codes;
    }
    return this.currencies;
  }

  /** The publication dates, oldest first. */
  dates(): readonly string[] {
    return this.sortedDates;
  }

  /**
   * This table plus `pubs`. A new date is added. For a date already stored, a publication equal as
   * decimals keeps the stored one (so re-importing the history CSV, which drops trailing zeros, does
   * not churn strings published as "143.20"); one that differs replaces it, since that is how an ECB
   * correction arrives. Returns `this` when nothing changed, so callers can skip persisting.
   * Throws TypeError when `pubs` repeats a date.
   */
  merge(pubs: readonly Publication[]): RateTable {
    const next = new Map(this.byDate);
    let changed = false;
    for (const pub of sortedUnique(pubs, 'RateTable.merge')) {
      const stored = next.get(pub.date);
      if (stored && samePublication(stored, pub)) continue;
      next.set(pub.date, pub);
      changed = true;
    }
    if (!changed) return this;
    return new RateTable([...next.values()].sort((a, b) => (a.date < b.date ? -1 : 1)));
  }
}
