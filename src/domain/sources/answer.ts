import { weekday } from '../calendar/berlin-time';
import type { DateResolution } from '../currency/explain-date';
import { formatDecimal } from '../decimal';
import { sourceInfo } from './catalog';
import type { ResolvedFigure } from './history';
import type { SourceRoute } from './route';
import type { SourceFigure, SourceId } from './types';

/** A published figure an answer used, as the publisher printed it, and how the day asked resolved to it. */
export interface FigureUsed extends SourceFigure {
  readonly source: SourceId;
  /** The publisher's table ("" for a source with one). */
  readonly table: string;
  /** The publication's day. */
  readonly date: string;
  readonly base: string;
  readonly currency: string;
  readonly resolved: DateResolution;
}

/** One source's step of a conversion through two sources. */
export interface LegUsed {
  readonly source: SourceId;
  readonly from: string;
  readonly to: string;
  /** Units of `to` per one `from` on this source's figures (40 significant digits at most). */
  readonly value: string;
  readonly figures: readonly FigureUsed[];
}

/** How the day asked resolved to one figure's publication: its own day, a weekly table's, or an earlier day's. */
export function figureResolution(figure: ResolvedFigure, requested: string): DateResolution {
  if (figure.date >= requested) return { requested, publication: figure.date, carriedForward: false };
  const weekly = sourceInfo(figure.source).tables.find((t) => t.id === figure.table)?.schedule.days === 'wednesdays';
  const day = weekday(requested);
  const reason = weekly ? 'weekly-table' : day === 0 || day === 6 ? 'weekend' : 'no-publication';
  return { requested, publication: figure.date, carriedForward: true, reason };
}

/** A figure as an answer shows it; the base's own figure ("1 per 1") is not shown. */
function figuresOf(figures: readonly ResolvedFigure[], requested: string): FigureUsed[] {
  return figures
    .filter((f) => f.code !== f.base)
    .map((f) => ({
      source: f.source,
      table: f.table,
      date: f.date,
      base: f.base,
      currency: f.code,
      value: f.figure.value,
      units: f.figure.units,
      direction: f.figure.direction,
      resolved: figureResolution(f, requested),
    }));
}

/** What a conversion over sources says of its rate: the figures, the legs when two, and one resolution for all. */
export interface RouteRate {
  /** The oldest publication of the figures used. */
  readonly date: string;
  /** The sources of the legs, in order, separated by "; " ("nbp", "nbp; nbu"). */
  readonly source: string;
  /** Units of the target per one unit of the origin (40 significant digits at most). */
  readonly value: string;
  readonly figures: readonly FigureUsed[];
  /** Each source's step when two are joined; absent for one. */
  readonly legs?: readonly LegUsed[];
  /** The day asked and the oldest publication used: carried forward when any figure is. */
  readonly resolved: DateResolution;
}

/** What several routes say together: the figures and legs of all, without the value (the caller's). */
export type JoinedRoutes = Omit<RouteRate, 'value'>;

const figureKey = (f: FigureUsed): string => `${f.source} ${f.table} ${f.date} ${f.currency}`;

/** A route's steps as an answer shows them; `requested` is the day asked (today without a date). */
function legsOf(route: SourceRoute, requested: string): LegUsed[] {
  return route.legs.map((leg) => ({
    source: leg.source,
    from: leg.from.code,
    to: leg.to.code,
    value: formatDecimal(leg.rate),
    figures: figuresOf([leg.from, leg.to], requested),
  }));
}

/**
 * The attribution of one or more routes priced on one day (a unit expression with several currencies
 * prices one route per currency): every figure once, in the order used; the sources in the order
 * they first occur; each step once, the legs shown when there is more than one; the oldest publication; and
 * one resolution, carried forward when any figure is.
 */
export function joinRoutes(routes: readonly SourceRoute[], requested: string): JoinedRoutes {
  // One step a key: two routes from the same currency may share their first leg.
  const legs = [
    ...new Map(routes.flatMap((route) => legsOf(route, requested)).map((leg) => [`${leg.source} ${leg.from} ${leg.to}`, leg])).values(),
  ];
  // One figure a key: the same key is the same publisher's figure of the same publication.
  const figures = [...new Map(legs.flatMap((leg) => leg.figures).map((f) => [figureKey(f), f])).values()];
  const dates = routes.flatMap((route) => route.legs.flatMap((leg) => [leg.from.date, leg.to.date])).sort();
  const oldest = dates[0]!;
  const carried = figures.find((f) => f.resolved.carriedForward);
  const resolved: DateResolution = carried
    ? { ...carried.resolved, publication: oldest }
    : { requested, publication: oldest, carriedForward: false };
  return {
    date: oldest,
    source: [...new Set(legs.map((leg) => leg.source))].join('; '),
    figures,
    ...(legs.length > 1 ? { legs } : {}),
    resolved,
  };
}

/** The rate of a route, as every surface answers it; `requested` is the day asked (today without a date). */
export function routeRate(route: SourceRoute, requested: string): RouteRate {
  const { date, source, figures, legs, resolved } = joinRoutes([route], requested);
  return { date, source, value: formatDecimal(route.rate), figures, ...(legs ? { legs } : {}), resolved };
}
