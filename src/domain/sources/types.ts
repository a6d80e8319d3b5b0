/** The publishers whose rates this API serves, each one a source with its own id (contract §13). */
export const SOURCE_IDS = ['ecb', 'boc', 'nb', 'cnb', 'nbp', 'cbr', 'boi', 'imf', 'nbu'] as const;

export type SourceId = (typeof SOURCE_IDS)[number];

/**
 * One figure exactly as its publisher printed it. `value` is the published decimal text with a
 * decimal point ("53,8359" is kept as "53.8359", "13.797" stays "13.797"): digits, an optional
 * fraction, never read through a float, never rescaled.
 */
export interface SourceFigure {
  readonly value: string;
  /**
   * How many units the figure prices, as published: `units` of the currency cost `value` of the
   * base (CNB's 100 JPY, Bank of Russia's `Nominal`, Norges Bank's 10^UNIT_MULT) when the direction
   * is `base-per-units`; `units` of the base cost `value` of the currency when `units-per-base`.
   */
  readonly units: string;
  /**
   * `base-per-units`: the price of the currency in the base (CAD per USD, SDRs per unit).
   * `units-per-base`: the price of the base in the currency (the ECB's units per euro, the IMF's
   * plain rows of units per US dollar).
   */
  readonly direction: 'base-per-units' | 'units-per-base';
}

/** One publication of one source: one day of one table, each figure as published. */
export interface SourcePublication {
  readonly source: SourceId;
  /**
   * The table of the source that published it, where a source publishes more than one with their
   * own schedules (NBP's daily table "A" and weekly table "B"; the IMF's "representative" rates
   * per US dollar and its "sdr" values); "" for a source with a single table.
   */
  readonly table: string;
  /** The day the figures are for, YYYY-MM-DD (NBP's effectiveDate, the ECB's publication day). */
  readonly date: string;
  /** The currency every figure of this publication is priced against (CAD, NOK, … USD or XDR for the IMF). */
  readonly base: string;
  /** ISO 4217 code → the figure; the base itself is not included. */
  readonly figures: Readonly<Record<string, SourceFigure>>;
}

/** A row of a feed that could not be read: skipped with its reason, never guessed. */
export interface FeedRowIssue {
  /** 1-based line of the response (for JSON, the line where the row starts). */
  readonly line: number;
  readonly reason: string;
}

/** What a loader read from one response. */
export interface ParsedFeed {
  readonly publications: SourcePublication[];
  readonly skipped: FeedRowIssue[];
}

/** A response whose whole shape is not the publisher's: the import fails, nothing is written. */
export class FeedFormatError extends Error {
  readonly line: number;
  readonly reason: string;

  constructor(source: string, line: number, reason: string) {
    super(`${source} feed, line ${line}: ${reason}`);
    this.name = 'FeedFormatError';
    this.line = line;
    this.reason = reason;
  }
}
