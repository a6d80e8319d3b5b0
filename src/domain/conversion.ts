import { knownCurrency } from './currency/codes';
import { formatFraction, formatScaled, isDecimalText, parseDecimals, parseRounding, pow10 } from './decimal';
import { Rational } from './rational';
import type { UnitDef } from './units/catalogue';
import { convertUnits, type UnitConversion, type UnitConversionRequest } from './units/convert';
import { unitNumbers } from './units/factors';
import { findUnit } from './units/lookup';

const isCurrency = (token: string): boolean => knownCurrency(token) !== undefined;

/**
 * from.factor / to.factor for two linear units of one category, computed once per pair: the
 * catalogue is finite, so this holds at most units² entries, whatever callers send (keyed by the
 * catalogue's own objects, never by the caller's tokens). When the factor is a terminating decimal
 * (its denominator 2^a·5^b, as between units defined in decimals: inch and centimeter, foot and
 * meter), also `scaled`: the factor as an integer over 10^places, so that a value's digits times it
 * are the exact result's digits.
 */
interface LinearPlan {
  factor: Rational;
  scaled: { digits: bigint; places: number } | undefined;
}
const linearPlans = new Map<UnitDef, Map<UnitDef, LinearPlan>>();

function linearPlan(from: UnitDef, to: UnitDef): LinearPlan | undefined {
  if (from.kind !== 'linear' || to.kind !== 'linear' || from.category !== to.category) return undefined;
  let row = linearPlans.get(from);
  if (row === undefined) linearPlans.set(from, (row = new Map()));
  let plan = row.get(to);
  if (plan === undefined) {
    const factor = unitNumbers(from).factor.div(unitNumbers(to).factor);
    row.set(to, (plan = { factor, scaled: decimalScaled(factor) }));
  }
  return plan;
}

/** num/den as digits / 10^places when den is 2^a·5^b: digits = num · 2^(m−a) · 5^(m−b), places = m = max(a, b). */
function decimalScaled(factor: Rational): LinearPlan['scaled'] {
  let den = factor.den;
  let twos = 0;
  let fives = 0;
  while (den % 2n === 0n) {
    den /= 2n;
    twos += 1;
  }
  while (den % 5n === 0n) {
    den /= 5n;
    fives += 1;
  }
  if (den !== 1n) return undefined;
  const places = Math.max(twos, fives);
  return { digits: factor.num * 2n ** BigInt(places - twos) * 5n ** BigInt(places - fives), places };
}

/**
 * A unit conversion as the API answers it: a currency at one end is INCOMPATIBLE_UNITS (a real
 * thing, just not a unit), currencies at both ends point to the currency route, anything else
 * unknown is UNKNOWN_UNIT. Inputs are validated first, in the contract's order.
 *
 * The common case (a valid value between two linear units of one category) is answered here with
 * one exact product: digits × (from/to factor, cached per pair) over 10^places, printed from its
 * digits when the factor terminates, unreduced otherwise. It is the same rational as convertUnits'
 * value × from.factor ÷ to.factor, so the printed digits are the same. Anything else, errors included, goes through convertUnits, which checks in the contract's
 * order (value, decimals, rounding, from, to): the fast path only ever answers where every check
 * passed, and it runs decimals and rounding after the value as convertUnits does.
 */
export function convertUnitsOrExplain(request: UnitConversionRequest): UnitConversion {
  const text: unknown = request.value;
  if (typeof text === 'string' && isDecimalText(text) && typeof request.from === 'string' && typeof request.to === 'string') {
    const decimals = parseDecimals(request.decimals);
    const rounding = parseRounding(request.rounding);
    const from = request.from === '' ? undefined : findUnit(request.from);
    const to = from === undefined || request.to === '' ? undefined : findUnit(request.to);
    const plan = to === undefined ? undefined : linearPlan(from!, to);
    if (plan !== undefined) {
      const dot = text.indexOf('.');
      const digits = BigInt(dot < 0 ? text : text.slice(0, dot) + text.slice(dot + 1));
      const places = dot < 0 ? 0 : text.length - dot - 1;
      // digits × factor over 10^places: from its digits when the factor terminates, else printed
      // without reducing it first (formatFraction).
      const { factor, scaled } = plan;
      const value = scaled
        ? formatScaled(digits * scaled.digits, places + scaled.places, decimals, rounding)
        : formatFraction(digits * factor.num, pow10(places) * factor.den, decimals, rounding);
      return {
        input: { value: text, unit: from!.id },
        result: { value, unit: to!.id },
        category: from!.category,
      };
    }
  }
  return convertUnits(request, { isCurrency });
}
