/**
 * Converting between unit expressions: both sides to the base units of their dimension as one
 * exact rational, then printed once by the contract's number rules (formatDecimal). Currencies
 * enter as 1/rate euros per unit of the currency (ECB rates are quoted per euro).
 */
import { formatDecimal, formatFraction, parseDecimalValue, parseDecimals, parseRounding, pow10, type RoundingMode } from '../../decimal';
import { ApiError } from '../../errors';
import { formatPiRational, PiRational } from '../../pi-rational';
import { quoteInput } from '../../quote-input';
import { Rational } from '../../rational';
import type { UnitDef } from '../catalogue';
import type { UnitConversion } from '../convert';
import { convertUnitsExact } from '../convert';
import { unitNumbers } from '../factors';
import { categoryDimension, describeUnitDimension, formatDimension, sameDimension } from '../dimensions';
import { findCategory, findUnit } from '../lookup';
import { parseExpression } from './cache';
import type { CompiledExpression, Compound } from './compile';
import { resolveExpression, type IsCurrency } from './resolve';

/** Units of `code` per euro, exactly as published; `param` names the side for RATE_NOT_FOUND. */
export type RateOf = (code: string, param: 'from' | 'to') => Rational;

export interface ExactExpressionConversion {
  /** A rational times a power of π (radians keep π as a symbol until the value is printed). */
  value: PiRational;
  /** Set when a currency occurs: the codes (sorted) and the cross rate, the money part of the factor. */
  money: { currencies: string[]; rate: Rational } | undefined;
}

/** The category's base unit (where its own conversions meet) and what it is in base units. */
function categoryBase(categoryId: string) {
  const unit = findUnit(findCategory(categoryId)!.baseUnit)!;
  return { unit, factor: categoryDimension(categoryId).baseFactor };
}

/** Euros per one of the expression's money part: the product of (1/rate)^exponent. */
function moneyFactor(expression: CompiledExpression, param: 'from' | 'to', rateOf: RateOf): Rational {
  if (expression.kind === 'unit') return Rational.ONE;
  return expression.currencies.reduce((f, { code, exponent }) => f.mul(rateOf(code, param).pow(-exponent)), Rational.ONE);
}

/**
 * A compound, or a whole linear catalogue unit, multiplies by its exact factor (π a symbol). Other
 * whole units (affine and reciprocal: °C, L/100 km, none of them radians) go through today's
 * conversion to their category's base unit, so they convert exactly as they do alone.
 */
function toBase(value: PiRational, expression: CompiledExpression, money: Rational): PiRational {
  if (expression.kind === 'compound') return value.mul(expression.unitFactor).mul(money);
  if (expression.unit.kind === 'linear') return value.mul(factorOf(expression.unit));
  const base = categoryBase(expression.unit.category);
  return PiRational.of(convertUnitsExact(rationalOf(value), expression.unit, base.unit).mul(base.factor));
}

function fromBase(value: PiRational, expression: CompiledExpression, money: Rational): PiRational {
  if (expression.kind === 'compound') return value.div(expression.unitFactor).div(money);
  if (expression.unit.kind === 'linear') return value.div(factorOf(expression.unit));
  const base = categoryBase(expression.unit.category);
  return PiRational.of(convertUnitsExact(rationalOf(value).div(base.factor), base.unit, expression.unit));
}

/** A value about to meet an affine or reciprocal unit: rational, since π enters only with radians. */
function rationalOf(value: PiRational): Rational {
  if (value.piPower !== 0) throw new TypeError(`a value with pi (${value}) cannot meet a non-linear unit: no angle unit is one`);
  return value.coefficient;
}

export function requireSameDimension(from: CompiledExpression, to: CompiledExpression): void {
  if (sameDimension(from.dimension, to.dimension)) return;
  const f = quoteInput(from.source);
  const t = quoteInput(to.source);
  // A whole catalogue unit is described as the plain refusal describes it (a reciprocal unit's note included).
  const describe = (e: CompiledExpression): string => (e.kind === 'unit' ? describeUnitDimension(e.unit) : formatDimension(e.dimension));
  const message = `Cannot convert ${f} to ${t}: ${f} is ${describe(from)}, ${t} is ${describe(to)}.`;
  throw new ApiError('INCOMPATIBLE_UNITS', message, { param: 'to' });
}

export const currenciesOf = (...expressions: CompiledExpression[]): string[] =>
  [...new Set(expressions.flatMap((e) => (e.kind === 'unit' ? [] : e.currencies.map((c) => c.code))))].sort();

/** The exact value of `value` `from` in `to`; `rateOf` is asked only for the currencies that occur. */
export function convertExpressionExact(
  value: Rational,
  from: CompiledExpression,
  to: CompiledExpression,
  rateOf?: RateOf,
): ExactExpressionConversion {
  requireSameDimension(from, to);
  // Two whole units convert as they do alone (π to PI_DIGITS), so their answer is today's, digit for digit.
  if (from.kind === 'unit' && to.kind === 'unit')
    return { value: PiRational.of(convertUnitsExact(value, from.unit, to.unit)), money: undefined };
  const currencies = currenciesOf(from, to);
  if (currencies.length > 0 && rateOf === undefined)
    throw new TypeError('convertExpressionExact: currencies occur but no rates were given');
  const fromMoney = currencies.length === 0 ? Rational.ONE : moneyFactor(from, 'from', rateOf!);
  const toMoney = currencies.length === 0 ? Rational.ONE : moneyFactor(to, 'to', rateOf!);
  const exact = fromBase(toBase(PiRational.of(value), from, fromMoney), to, toMoney);
  return { value: exact, money: currencies.length === 0 ? undefined : { currencies, rate: fromMoney.div(toMoney) } };
}

/**
 * A side that converts by one factor: a compound without currencies, or a whole linear catalogue
 * unit (by its catalogue object: a whole unit's compiled form is made afresh per request).
 */
type LinearSide = Compound | UnitDef;

function linearSide(expression: CompiledExpression): LinearSide | undefined {
  if (expression.kind === 'compound') return expression.currencies.length === 0 ? expression : undefined;
  return expression.unit.kind === 'linear' ? expression.unit : undefined;
}

function factorOf(side: LinearSide): PiRational {
  if ('kind' in side && side.kind === 'compound') return side.unitFactor;
  const unit = side as UnitDef;
  const base = categoryBase(unit.category);
  return unitNumbers(unit).symbolic.div(unitNumbers(base.unit).symbolic).mul(base.factor);
}

/**
 * from's factor over to's, once per pair of sides: held by the sides themselves (weakly), so a
 * compound's pairs live as long as it stays in the parse cache, and catalogue pairs are at most
 * units² entries.
 */
const pairFactors = new WeakMap<LinearSide, WeakMap<LinearSide, PiRational>>();

function pairFactor(from: LinearSide, to: LinearSide): PiRational {
  let row = pairFactors.get(from);
  if (row === undefined) pairFactors.set(from, (row = new WeakMap()));
  let factor = row.get(to);
  if (factor === undefined) row.set(to, (factor = factorOf(from).div(factorOf(to))));
  return factor;
}

/**
 * The common repeated request, answered as a pair of plain linear units is (conversion.ts): a valid
 * decimal `text` between two linear sides of one dimension without currencies is its digits times
 * the pair's factor, printed once (formatFraction prints num/den unreduced exactly as formatDecimal
 * prints the reduced value). Undefined for anything else, which convertExpressionExact answers:
 * the same rational (value × from's factor ÷ to's), so the same digits.
 */
export function convertLinearExpressions(
  text: string,
  from: CompiledExpression,
  to: CompiledExpression,
  decimals: number | undefined,
  rounding: RoundingMode,
): ExpressionConversion | undefined {
  const a = linearSide(from);
  const b = a === undefined ? undefined : linearSide(to);
  if (b === undefined || !sameDimension(from.dimension, to.dimension)) return undefined;
  const factor = pairFactor(a!, b);
  const dot = text.indexOf('.');
  const digits = BigInt(dot < 0 ? text : text.slice(0, dot) + text.slice(dot + 1));
  const places = dot < 0 ? 0 : text.length - dot - 1;
  const { coefficient: q, piPower } = factor;
  const printed =
    piPower === 0
      ? formatFraction(digits * q.num, pow10(places) * q.den, decimals, rounding)
      : formatPiRational(factor.mul(Rational.of(digits, pow10(places))), decimals, rounding);
  return {
    input: { value: text, unit: from.canonical },
    result: { value: printed, unit: to.canonical },
    category: from.category,
  };
}

export interface ExpressionConversionRequest {
  value: unknown;
  from: unknown;
  to: unknown;
  decimals?: unknown;
  rounding?: unknown;
}

/** The contract's Conversion with canonical expressions as units; `money` when a currency occurs. */
export interface ExpressionConversion extends UnitConversion {
  money?: { currencies: string[]; rate: string };
}

export interface ExpressionOptions {
  isCurrency: IsCurrency;
  rateOf?: RateOf;
}

/** Checks in the contract's order (value, decimals, rounding, from, to), converts, rounds once. */
export function convertUnitExpressions(request: ExpressionConversionRequest, options: ExpressionOptions): ExpressionConversion {
  const value = parseDecimalValue(request.value, 'value');
  const decimals = parseDecimals(request.decimals);
  const rounding = parseRounding(request.rounding);
  const from = parseExpression(request.from, 'from');
  const to = parseExpression(request.to, 'to');
  resolveExpression(from, 'from', options.isCurrency);
  resolveExpression(to, 'to', options.isCurrency);
  const exact = convertExpressionExact(value, from, to, options.rateOf);
  return conversionAnswer(request.value as string, from, to, exact, decimals, rounding);
}

export function conversionAnswer(
  text: string,
  from: CompiledExpression,
  to: CompiledExpression,
  exact: ExactExpressionConversion,
  decimals: number | undefined,
  rounding: Parameters<typeof formatDecimal>[2],
): ExpressionConversion {
  const answer: ExpressionConversion = {
    input: { value: text, unit: from.canonical },
    result: { value: formatPiRational(exact.value, decimals, rounding), unit: to.canonical },
    category: from.category,
  };
  if (exact.money !== undefined) answer.money = { currencies: exact.money.currencies, rate: formatDecimal(exact.money.rate) };
  return answer;
}
