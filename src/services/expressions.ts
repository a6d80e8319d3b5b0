/**
 * Converting unit expressions (`km/h`, `EUR/kWh`, `m/s^2`): the use case behind `from`/`to` once
 * they accept expressions. Two plain catalogue names (or currency codes) are a plain unit or
 * currency conversion, answered in that conversion's own shape; rates are read only when a
 * currency occurs, and then from one publication, resolved as every currency answer resolves it.
 */
import { convertUnitsOrExplain } from '../domain/conversion';
import type { FigureUsed, LegUsed } from '../domain/sources/answer';
import { knownCurrency } from '../domain/currency/codes';
import { euroRate, fixedRates, publishedCodeOn, rateSource, shownEuroRates } from '../domain/currency/legal-rate';
import type { Succession } from '../domain/currency/successions';
import { berlinDate } from '../domain/calendar/berlin-time';
import type { DateResolution } from '../domain/currency/explain-date';
import { parseDate, requireHistoryPlan, type CurrencyRequest } from '../domain/currency/request';
import { isDecimalText, parseDecimalValue, parseDecimals, parseRounding } from '../domain/decimal';
import type { PlanId } from '../domain/plans';
import type { UnitConversion, UnitConversionRequest } from '../domain/units/convert';
import {
  conversionAnswer,
  convertExpressionExact,
  convertLinearExpressions,
  currenciesOf,
  parseExpression,
  requireSameDimension,
  resolveExpression,
  type CompiledExpression,
} from '../domain/units/expression';
import { findUnit } from '../domain/units/lookup';
import { resolvePublication, type PublicationExplainer, type PublicationLoader } from './currency/publication';
import type { RatesReader } from './currency/rates';
import type { ExpressionSources } from './currency/source-quote';
import { ECB_ONLY, parseSource } from './currency/held-sources';
import { ApiError } from '../domain/errors';
import type { Rational } from '../domain/rational';
import type { RoundingMode } from '../domain/decimal';
import type { SourceId } from '../domain/sources/types';

/** The same inputs as a currency conversion; `date` and `source` only where a currency occurs, a date only on plans with history. */
export type ExpressionRequest = CurrencyRequest & { source?: unknown };

/** What a conversion with currencies used: one publication, and the money part of its factor. */
export interface ExpressionRate {
  /** The publication used (the latest on or before `date`, or the latest). */
  date: string;
  /** "ecb", the legal acts of `fixed`, or both separated by "; " (domain/currency/legal-rate.ts). */
  source: string;
  /** The cross rate: what one of `from`'s money is in `to`'s money, under the unrounded rule. */
  value: string;
  /** Every currency that occurs, in units per euro as published ("1" for EUR) or as fixed by law. */
  rates: Record<string, string>;
  /** The legal successions whose fixed rates were used; empty when none. */
  fixed: readonly Succession[];
  /** The day asked for (without `date`, today in Berlin), the publication used, and whether it is an earlier day's. */
  resolved: DateResolution;
  /** The published figures used when another source than the ECB priced the rate (then `rates` is empty). */
  figures?: readonly FigureUsed[];
  /** Each source's step when two were joined. */
  legs?: readonly LegUsed[];
}

/** The contract's Conversion (units as canonical expressions), plus `rate` when a currency occurs. */
export interface ExpressionConversionAnswer extends UnitConversion {
  rate?: ExpressionRate;
}

export interface ExpressionDeps {
  plan: PlanId;
  rates: RatesReader;
  clock: () => Date;
  /** The request's publication loader (one cache read for a whole batch). */
  publications: PublicationLoader;
  /** The currency conversions' own explanations of a date and of a currency not quoted, so both say the same. */
  explainer: PublicationExplainer;
  /** The served sources, chosen as a conversion chooses them (absent: the ECB alone). */
  sources?: ExpressionSources;
}

const isPlain = (token: unknown): token is string =>
  typeof token === 'string' && (findUnit(token) !== undefined || knownCurrency(token) !== undefined);

/**
 * Whether a request is a plain unit conversion: both ends a catalogue unit (or a currency code, which
 * the unit conversion explains) and no date. Such a request is answered by convertUnitsOrExplain
 * alone, synchronously, without reading the expression parser or its cache: two map lookups first.
 */
export const isPlainRequest = (request: Pick<ExpressionRequest, 'from' | 'to' | 'date'>): boolean =>
  (request.date === undefined || request.date === null) && isPlain(request.from) && isPlain(request.to);

const sideCodes = (expression: CompiledExpression, param: 'from' | 'to'): [string, string][] =>
  expression.kind === 'compound' ? expression.currencies.map((c): [string, string] => [c.code, param]) : [];

/** A unit expression with currencies, parsed and resolved: what pricing its money needs. */
interface MoneyRequest {
  text: string;
  value: Rational;
  from: CompiledExpression;
  to: CompiledExpression;
  date: string | undefined;
  decimals: number | undefined;
  rounding: RoundingMode;
}

/**
 * Checks in the contract's order: validation (value, decimals, rounding, date, source, the
 * expressions' syntax), plan (a date needs history), existence (names, currencies, dimensions), then
 * rates. A currency is priced as a conversion prices it (contract §13): on the ECB's publication
 * when it prices every currency written (or `source` is `ecb`), else over the sources.
 */
export async function convertExpression(request: ExpressionRequest, deps: ExpressionDeps): Promise<ExpressionConversionAnswer> {
  if (isPlainRequest(request)) {
    // The unit conversion's own order of checks (value, decimals, rounding, from, to), given the
    // request as it is: its parsers read a null decimals or rounding as absent.
    return convertUnitsOrExplain(request as UnitConversionRequest);
  }
  // The value is checked first; its exact rational is made only where the linear plan does not answer.
  if (typeof request.value !== 'string' || !isDecimalText(request.value)) parseDecimalValue(request.value, 'value');
  const decimals = parseDecimals(request.decimals);
  const rounding = parseRounding(request.rounding);
  const date = parseDate(request.date);
  const text = request.value as string;
  // A date (and a source) chooses rates: where no currency occurs it chooses nothing, and is ignored
  // (a list of conversions may carry one date for all), on any plan.
  if (isPlain(request.from) && isPlain(request.to)) {
    // A plain pair with a date: two units convert as without it; a currency code at one end is
    // INCOMPATIBLE_UNITS, which says more than the date would.
    return convertUnitsOrExplain({ value: text, from: request.from, to: request.to, decimals, rounding });
  }
  const from = parseExpression(request.from, 'from');
  const to = parseExpression(request.to, 'to');
  const written = currenciesOf(from, to);
  const sources = deps.sources ?? ecbAlone(deps.rates);
  const source = written.length === 0 ? undefined : sources.parse(request.source);
  requireHistoryPlan(written.length === 0 ? undefined : date, deps.plan);
  const known = sources.known();
  const isCurrency = (code: string): boolean => knownCurrency(code) !== undefined || known.has(code);
  resolveExpression(from, 'from', isCurrency);
  resolveExpression(to, 'to', isCurrency);
  requireSameDimension(from, to);
  if (written.length === 0) {
    const linear = convertLinearExpressions(text, from, to, decimals, rounding);
    if (linear !== undefined) return linear;
    const exact = convertExpressionExact(parseDecimalValue(text, 'value'), from, to);
    return conversionAnswer(text, from, to, exact, decimals, rounding);
  }
  const money: MoneyRequest = { text, value: parseDecimalValue(text, 'value'), from, to, date, decimals, rounding };
  if (source !== undefined && source !== 'ecb') return onSources(money, deps, sources, source);
  try {
    return await onEcb(money, deps);
  } catch (error) {
    const notPriced = error instanceof ApiError && error.code === 'RATE_NOT_FOUND';
    if (source === 'ecb' || !notPriced || !sources.others()) throw error;
    return onSources(money, deps, sources, undefined);
  }
}

/** The expression on the ECB's publication (legal successions included), as every ECB answer prices it. */
async function onEcb(request: MoneyRequest, deps: ExpressionDeps): Promise<ExpressionConversionAnswer> {
  const { text, value, from, to, date, decimals, rounding } = request;
  const publication = await resolvePublication(deps.rates, deps.clock, date, deps.publications);
  // From the day the law replaced a currency its fixed rate answers (legal-rate.ts), so the rate needed is its successor's.
  const day = date ?? berlinDate(deps.clock());
  const publishedCodes = (codes: [string, string][]): [string, string][] =>
    codes.map(([code, param]) => [publishedCodeOn(code, day), param]);
  // In the order the exact conversion asks for rates (from's currencies, then to's), so the same one is blamed.
  await deps.explainer.requireQuoted(publication, publishedCodes([...sideCodes(from, 'from'), ...sideCodes(to, 'to')]));
  const exact = convertExpressionExact(value, from, to, (code, param) => euroRate(publication, code, day, param).perEuro);
  const { money, ...conversion } = conversionAnswer(text, from, to, exact, decimals, rounding);
  if (money === undefined) return conversion;
  const used = money.currencies.map((code) => euroRate(publication, code, day, 'from'));
  const rates = shownEuroRates(publication, money.currencies, day);
  const resolved = deps.explainer.resolution(date, publication);
  return {
    ...conversion,
    rate: { date: publication.date, source: rateSource(used), value: money.rate, rates, fixed: fixedRates(used), resolved },
  };
}

/**
 * The expression on the sources' figures: every currency in units of the first one written, each
 * reached by a route of one source or two joined (never an average), and the figures named.
 */
async function onSources(
  request: MoneyRequest,
  deps: ExpressionDeps,
  sources: ExpressionSources,
  only: SourceId | undefined,
): Promise<ExpressionConversionAnswer> {
  const { text, value, from, to, date, decimals, rounding } = request;
  const codes = [...new Set([...sideCodes(from, 'from'), ...sideCodes(to, 'to')].map(([code]) => code))];
  const { perReference, used } = await sources.price(codes, date, deps.publications, only);
  const exact = convertExpressionExact(value, from, to, (code) => perReference.get(code)!);
  const { money, ...conversion } = conversionAnswer(text, from, to, exact, decimals, rounding);
  const { legs, ...attribution } = used;
  return {
    ...conversion,
    rate: { ...attribution, value: money!.rate, rates: {}, fixed: [], ...(legs ? { legs } : {}) },
  };
}

/** The ECB alone, for callers that serve no other source. */
function ecbAlone(rates: RatesReader): ExpressionSources {
  return {
    known: () => rates.knownCurrencies(),
    parse: (value) => parseSource(value, ECB_ONLY),
    others: () => false,
    price: () => Promise.reject(new TypeError('ecbAlone: no source besides the ECB is served')),
  };
}
