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

/** The same inputs as a currency conversion; `date` only where a currency occurs, and only on plans with history. */
export type ExpressionRequest = CurrencyRequest;

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

/**
 * Checks in the contract's order: validation (value, decimals, rounding, date, the expressions'
 * syntax), plan (a date needs history), existence (names, currencies, dimensions), then rates.
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
  // A date chooses rates: where no currency occurs it chooses nothing, and is ignored (a list of
  // conversions may carry one date for all), on any plan.
  if (isPlain(request.from) && isPlain(request.to)) {
    // A plain pair with a date: two units convert as without it; a currency code at one end is
    // INCOMPATIBLE_UNITS, which says more than the date would.
    return convertUnitsOrExplain({ value: text, from: request.from, to: request.to, decimals, rounding });
  }
  const from = parseExpression(request.from, 'from');
  const to = parseExpression(request.to, 'to');
  const written = currenciesOf(from, to);
  requireHistoryPlan(written.length === 0 ? undefined : date, deps.plan);
  const isCurrency = (code: string): boolean => knownCurrency(code) !== undefined || deps.rates.knownCurrencies().has(code);
  resolveExpression(from, 'from', isCurrency);
  resolveExpression(to, 'to', isCurrency);
  requireSameDimension(from, to);
  if (written.length === 0) {
    const linear = convertLinearExpressions(text, from, to, decimals, rounding);
    if (linear !== undefined) return linear;
  }
  const value = parseDecimalValue(text, 'value');
  const publication = written.length === 0 ? undefined : await resolvePublication(deps.rates, deps.clock, date, deps.publications);
  // From the day the law replaced a currency its fixed rate answers (legal-rate.ts), so the rate needed is its successor's.
  const day = date ?? berlinDate(deps.clock());
  const publishedCodes = (codes: [string, string][]): [string, string][] =>
    codes.map(([code, param]) => [publishedCodeOn(code, day), param]);
  // In the order the exact conversion asks for rates (from's currencies, then to's), so the same one is blamed.
  if (publication !== undefined)
    await deps.explainer.requireQuoted(publication, publishedCodes([...sideCodes(from, 'from'), ...sideCodes(to, 'to')]));
  const exact = convertExpressionExact(value, from, to, (code, param) => euroRate(publication!, code, day, param).perEuro);
  const { money, ...conversion } = conversionAnswer(text, from, to, exact, decimals, rounding);
  if (money === undefined || publication === undefined) return conversion;
  const used = money.currencies.map((code) => euroRate(publication, code, day, 'from'));
  const rates = shownEuroRates(publication, money.currencies, day);
  const resolved = deps.explainer.resolution(date, publication);
  return {
    ...conversion,
    rate: { date: publication.date, source: rateSource(used), value: money.rate, rates, fixed: fixedRates(used), resolved },
  };
}
