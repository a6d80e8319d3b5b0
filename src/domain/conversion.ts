import { knownCurrency } from './currency/codes';
import { formatFraction, isDecimalText, parseDecimals, parseRounding, pow10 } from './decimal';
import { Rational } from './rational';
import type { UnitDef } from './units/catalogue';
import { convertUnits, type UnitConversion, type UnitConversionRequest } from './units/convert';
import { unitNumbers } from './units/factors';
import { findUnit } from './units/lookup';

const isCurrency = (token: string): boolean => knownCurrency(token) !== undefined;

/**
 * from.factor / to.factor for two linear units of one category, computed once per pair: the
 * catalogue is finite, so this holds at most units² entries, whatever callers send (keyed by the
 * catalogue's own objects, never by the caller's tokens).
 */
const linearPlans = new Map<UnitDef, Map<UnitDef, Rational>>();

function linearFactor(from: UnitDef, to: UnitDef): Rational | undefined {
  if (from.kind !== 'linear' || to.kind !== 'linear' || from.category !== to.category) return undefined;
  let row = linearPlans.get(from);
  if (row === undefined) linearPlans.set(from, (row = new Map()));
  let factor = row.get(to);
  if (factor === undefined) row.set(to, (factor = unitNumbers(from).factor.div(unitNumbers(to).factor)));
  return factor;
}

/**
 * A unit conversion as the API answers it: a currency at one end is INCOMPATIBLE_UNITS (a real
 * thing, just not a unit), currencies at both ends point to the currency route, anything else
 * unknown is UNKNOWN_UNIT. Inputs are validated first, in the contract's order.
 *
 * The common case (a valid value between two linear units of one category) is answered here with
 * one exact product: digits × (from/to factor, cached per pair) over 10^places, printed unreduced. It is
 * the same rational as convertUnits' value × from.factor ÷ to.factor, so the printed digits are the
 * same. Anything else, errors included, goes through convertUnits, which checks in the contract's
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
    const factor = to === undefined ? undefined : linearFactor(from!, to);
    if (factor !== undefined) {
      const dot = text.indexOf('.');
      const digits = BigInt(dot < 0 ? text : text.slice(0, dot) + text.slice(dot + 1));
      // digits × factor over 10^places, printed without reducing it first (formatFraction).
      const value = formatFraction(digits * factor.num, pow10(dot < 0 ? 0 : text.length - dot - 1) * factor.den, decimals, rounding);
      return {
        input: { value: text, unit: from!.id },
        result: { value, unit: to!.id },
        category: from!.category,
      };
    }
  }
  return convertUnits(request, { isCurrency });
}
