import { formatDecimal, type RoundingMode } from '../decimal';
import { ApiError } from '../errors';
import type { Rational } from '../rational';
import { figureResolution } from './answer';
import { sourceInfo } from './catalog';
import { unitsPerBase, type ResolvedFigure, type SourceHistory } from './history';
import type { SourceId } from './types';
import type { DateResolution } from '../currency/explain-date';

/** One source's figures of a day as a listing: units of each code per one unit of `base` (times an amount). */
export interface SourceRatesListing {
  /** The newest publication of the figures listed. */
  readonly date: string;
  readonly base: string;
  readonly source: SourceId;
  readonly amount?: string;
  readonly rates: Record<string, string>;
  readonly resolved: DateResolution;
}

export interface SourceListingRequest {
  readonly source: SourceId;
  readonly date: string | undefined;
  /** The day asked (today without a date). */
  readonly requested: string;
  /** Absent: the source's own base. */
  readonly base: string | undefined;
  readonly symbols: readonly string[] | undefined;
  readonly amount: Rational | undefined;
  readonly amountText: string | undefined;
  readonly decimals: number | undefined;
  readonly rounding: RoundingMode;
}

const notQuotedBy = (source: SourceId, code: string, param: string, asked: string) =>
  new ApiError('RATE_NOT_FOUND', `${source} does not quote ${code} ${asked}.`, { param, seeAlso: 'sources' });

/** A figure as a listing prints it: the published text where it already is units per one base, else the exact quotient. */
function printed(figure: ResolvedFigure, base: ResolvedFigure, request: SourceListingRequest): string {
  const { value, units, direction } = figure.figure;
  const plain = request.amount === undefined && request.decimals === undefined && base.code === base.base;
  if (plain && units === '1' && direction === 'units-per-base') return value;
  let rate = unitsPerBase(figure.figure).div(unitsPerBase(base.figure));
  if (request.amount !== undefined) rate = rate.mul(request.amount);
  return formatDecimal(rate, request.decimals, request.rounding);
}

/**
 * The rates of one source on a day (or its latest), against its base or any currency it quotes:
 * each from that source's figures against one base, never another source's. The base first, then
 * the asked symbols in order, or every currency its tables of that base carry then, by code.
 */
export function listSourceRates(history: SourceHistory, request: SourceListingRequest): SourceRatesListing {
  const { source, date } = request;
  const asked = date === undefined ? 'in its latest publications' : `on ${date}`;
  const baseCode = request.base ?? sourceInfo(source).base;
  const base = history.figures(source, baseCode, date)[0];
  if (!base) throw notQuotedBy(source, baseCode, 'base', asked);
  const codes = request.symbols ?? [baseCode, ...[...history.quoted(source).keys()].filter((c) => c !== baseCode).sort()];
  const rates: Record<string, string> = {};
  const used: ResolvedFigure[] = [base];
  for (const code of codes) {
    const figure = history.figures(source, code, date).find((f) => f.base === base.base);
    if (!figure) {
      if (request.symbols) throw notQuotedBy(source, code, 'symbols', asked);
      continue;
    }
    used.push(figure);
    rates[code] = printed(figure, base, request);
  }
  const newest = used
    .map((f) => f.date)
    .sort()
    .at(-1)!;
  const oldest = used.reduce((a, b) => (b.date < a.date ? b : a));
  return {
    date: newest,
    base: baseCode,
    source,
    ...(request.amountText === undefined ? {} : { amount: request.amountText }),
    rates,
    resolved: figureResolution(oldest, request.requested),
  };
}
