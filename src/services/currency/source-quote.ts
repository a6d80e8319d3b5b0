import { berlinDate } from '../../domain/calendar/berlin-time';
import { minorUnitsOf, type CurrencyConversion } from '../../domain/currency/convert';
import type { DateResolution } from '../../domain/currency/explain-date';
import { requirePossibleDate, type ParsedCurrencyRequest } from '../../domain/currency/request';
import { formatDecimal } from '../../domain/decimal';
import type { Publication } from '../../domain/ecb';
import { ApiError } from '../../domain/errors';
import { Rational } from '../../domain/rational';
import { joinRoutes, routeRate, type JoinedRoutes, type RouteRate } from '../../domain/sources/answer';
import { chooseRoute, sourcesQuoting, type SourceRoute } from '../../domain/sources/route';
import type { SourceId } from '../../domain/sources/types';
import { pairsOn, type HeldSources } from './held-sources';
import { resolvePublication, type PublicationSource } from './publication';
import type { RatesReader } from './rates';

/** A conversion priced on the sources' figures: the rate names each figure, and the legs when two sources are joined. */
export type SourceConversion = CurrencyConversion & { rate: CurrencyConversion['rate'] & RouteRate & { resolved: DateResolution } };

/** The ECB publication in effect on the day, when there is one to join a leg to; none is no error here. */
async function ecbPublication(rates: RatesReader, clock: () => Date, date: string | undefined, loader: PublicationSource) {
  try {
    return await resolvePublication(rates, clock, date, loader);
  } catch {
    return undefined;
  }
}

/** RATE_NOT_FOUND for a pair no route prices, naming the sources that do quote it that day (`asked`: "on 2026-03-04"). */
export function noRoute(from: string, to: string, date: string | undefined, quoting: readonly SourceId[], only?: SourceId): ApiError {
  const others = quoting.length === 0 ? ' No source does.' : ` Sources that do: ${quoting.join(', ')}.`;
  const when = (whose: string) => (date === undefined ? `in ${whose} latest publications` : `on ${date}`);
  const message =
    only === undefined
      ? `No source quotes both ${from} and ${to} ${when('their')}, and no two sources join them through a currency both quote.`
      : `${only} does not quote both ${from} and ${to} ${when('its')}.${others}`;
  return new ApiError('RATE_NOT_FOUND', message, { param: 'to', seeAlso: 'sources' });
}

export interface SourceQuoteDeps {
  rates: RatesReader;
  held: HeldSources;
  clock: () => Date;
}

/**
 * The conversion on the figures of `only` (that source alone), or of the first route over the
 * served sources (contract §13): one source quoting both, else two joined. Undefined when no
 * route prices the pair, so the caller can keep its own error.
 */
export async function quoteFromSources(
  { rates, held, clock }: SourceQuoteDeps,
  parsed: ParsedCurrencyRequest,
  loader: PublicationSource,
  only?: SourceId,
): Promise<SourceConversion | undefined> {
  const today = berlinDate(clock());
  if (parsed.date !== undefined) requirePossibleDate(parsed.date, today);
  const ecb: Publication | undefined =
    only === undefined || only === 'ecb' ? await ecbPublication(rates, clock, parsed.date, loader) : undefined;
  const pair = pairsOn(held.history(), ecb, parsed.date);
  const route = chooseRoute(pair, only === undefined ? held.enabled() : [only], parsed.from, parsed.to);
  if (!route) return undefined;
  const rate = routeRate(route, parsed.date ?? today);
  const decimals = parsed.minorUnits ? minorUnitsOf(parsed.to) : parsed.decimals;
  return {
    input: { value: parsed.text, unit: parsed.from },
    result: { value: formatDecimal(parsed.value.mul(route.rate), decimals, parsed.rounding), unit: parsed.to },
    rate: { ...rate, fixed: [] },
  };
}

/** The sources that quote the pair on the day asked (or their latest), for a RATE_NOT_FOUND. */
export async function quotingSources(
  { rates, held, clock }: SourceQuoteDeps,
  parsed: ParsedCurrencyRequest,
  loader: PublicationSource,
): Promise<SourceId[]> {
  const ecb = await ecbPublication(rates, clock, parsed.date, loader);
  return sourcesQuoting(pairsOn(held.history(), ecb, parsed.date), held.enabled(), parsed.from, parsed.to);
}

/** A unit expression's currencies priced over the sources: each in units per one of the first, and what that used. */
export interface ExpressionPricing {
  /** Units of each currency per one unit of the reference (the first code); the reference is 1. */
  readonly perReference: ReadonlyMap<string, Rational>;
  readonly used: JoinedRoutes;
}

/**
 * Prices `codes` (the first is the reference) on the figures of `only`, or over the served sources in
 * the contract's order: one route from the reference to each other currency (a lone currency: to
 * itself, so a source quoting it is named). RATE_NOT_FOUND for the first currency no route reaches.
 */
export async function priceOnSources(
  { rates, held, clock }: SourceQuoteDeps,
  codes: readonly string[],
  date: string | undefined,
  loader: PublicationSource,
  only?: SourceId,
): Promise<ExpressionPricing> {
  const today = berlinDate(clock());
  if (date !== undefined) requirePossibleDate(date, today);
  const ecb = only === undefined ? await ecbPublication(rates, clock, date, loader) : undefined;
  const pair = pairsOn(held.history(), ecb, date);
  const order = only === undefined ? held.enabled() : [only];
  const [reference, ...others] = codes as [string, ...string[]];
  const perReference = new Map<string, Rational>([[reference, Rational.ONE]]);
  const routes: SourceRoute[] = [];
  for (const code of others.length === 0 ? [reference] : others) {
    const route = chooseRoute(pair, order, reference, code);
    if (!route) throw noRoute(reference, code, date, sourcesQuoting(pair, held.enabled(), reference, code), only);
    perReference.set(code, code === reference ? Rational.ONE : route.rate);
    routes.push(route);
  }
  return { perReference, used: joinRoutes(routes, date ?? today) };
}

/** The sources as a unit expression with currencies reads them. */
export interface ExpressionSources {
  /** Every code a conversion may name: the ECB's and every served source's. */
  known(): ReadonlySet<string>;
  /** The `source` asked for, checked as a conversion checks it (undefined: the contract's order). */
  parse(value: unknown): SourceId | undefined;
  /** Whether any source besides the ECB is served, so a pair the ECB does not price may still be. */
  others(): boolean;
  /** The currencies priced over the sources (priceOnSources). */
  price(codes: readonly string[], date: string | undefined, loader: PublicationSource, only?: SourceId): Promise<ExpressionPricing>;
}
