/**
 * Unit conversion: one exact rational expression, printed once by the contract's number rules.
 */
import { formatDecimal, parseDecimalValue, parseDecimals, parseRounding, type RoundingMode } from '../decimal';
import { ApiError } from '../errors';
import { quoteInput } from '../quote-input';
import type { Rational } from '../rational';
import type { UnitDef } from './catalogue';
import { describeUnitDimension, formatDimension, MONEY } from './dimensions';
import { unitNumbers } from './factors';
import { findUnit } from './lookup';
import { didYouMean } from '../nearest-names';
import { suggestUnits } from './expression/suggest';

export interface UnitConversionRequest {
  /** Decimal string, as sent. */
  value: string;
  /** Unit id, symbol or alias. */
  from: string;
  to: string;
  /** Places to round the result to (0..40); unrounded (40 significant digits at most) when absent. */
  decimals?: number;
  /** How to round to `decimals`; HALF_UP when absent. */
  rounding?: RoundingMode;
}

export interface UnitConversion {
  input: { value: string; unit: string };
  result: { value: string; unit: string };
  category: string;
}

/** Echoes user input in messages, bounded: a token can be as long as the body allows. */

export interface ConvertOptions {
  /**
   * Tells currency codes from unknown units, so that a unit with a currency is INCOMPATIBLE_UNITS
   * (contract section 2) rather than UNKNOWN_UNIT. The currency domain supplies it.
   */
  isCurrency?: (token: string) => boolean;
}

type Resolved = UnitDef | { readonly currency: string };

/** A catalogue unit, or the token of a currency when `isCurrency` recognises it. */
function resolveUnit(token: unknown, param: 'from' | 'to', options: ConvertOptions): Resolved {
  if (typeof token !== 'string' || token === '') {
    // An empty name is a missing input, as it is for currencies, not a unit that does not exist.
    throw new ApiError('INVALID_REQUEST', `${param} must be a unit id, symbol or alias (a non-empty string).`, { param });
  }
  const unit = findUnit(token);
  if (unit !== undefined) return unit;
  if (options.isCurrency?.(token) === true) return { currency: token };
  throw new ApiError('UNKNOWN_UNIT', `Unit ${quoteInput(token)} is not known${didYouMean(suggestUnits(token))}.`, {
    param,
    seeAlso: 'units',
  });
}

function currencyError(from: Resolved, to: Resolved): ApiError {
  if ('currency' in from && 'currency' in to) {
    // Callers that take currency pairs (services/conversions.ts) answer them before they get here.
    const message = `${quoteInput(from.currency)} and ${quoteInput(to.currency)} are currencies, not units.`;
    return new ApiError('UNKNOWN_UNIT', message, { param: 'from' });
  }
  const describe = (r: Resolved): string => ('currency' in r ? `a currency (${quoteInput(r.currency)})` : `${r.category} (${r.id})`);
  const param = 'currency' in to ? 'to' : 'from';
  return new ApiError('INCOMPATIBLE_UNITS', `Cannot convert ${describe(from)} to ${describe(to)}: ${dimensions(from, to)}.`, { param });
}

/** "speed is length·time⁻¹, mass is mass": both sides' dimensions, as expressions write them. */
function dimensions(from: Resolved, to: Resolved): string {
  const side = (r: Resolved): string =>
    'currency' in r ? `a currency is ${formatDimension(MONEY)}` : `${r.category} is ${describeUnitDimension(r)}`;
  return `${side(from)}, ${side(to)}`;
}

function toBase(value: Rational, unit: UnitDef): Rational {
  const { factor, offset } = unitNumbers(unit);
  switch (unit.kind) {
    case 'linear':
      return value.mul(factor);
    case 'affine': {
      const base = value.add(offset).mul(factor);
      if (base.sign() < 0) {
        const zero = formatDecimal(offset.neg());
        const message = `${formatDecimal(value)} ${unit.id} is below absolute zero (${zero} ${unit.id}).`;
        throw new ApiError('INVALID_REQUEST', message, { param: 'value' });
      }
      return base;
    }
    case 'reciprocal':
      if (value.isZero()) {
        const message = `value must not be 0 in ${unit.id}, a reciprocal unit (it would mean infinity).`;
        throw new ApiError('INVALID_REQUEST', message, { param: 'value' });
      }
      return factor.div(value);
  }
}

function fromBase(base: Rational, unit: UnitDef, from: UnitDef): Rational {
  const { factor, offset } = unitNumbers(unit);
  switch (unit.kind) {
    case 'linear':
      return base.div(factor);
    case 'affine':
      return base.div(factor).sub(offset);
    case 'reciprocal':
      if (base.isZero()) {
        const message = `0 ${from.id} has no value in ${unit.id}, a reciprocal unit (it would be infinite).`;
        throw new ApiError('INVALID_REQUEST', message, { param: 'value' });
      }
      return factor.div(base);
  }
}

/**
 * The exact converted value. Throws INCOMPATIBLE_UNITS across categories and INVALID_REQUEST
 * (param "value") below absolute zero or where a reciprocal unit would divide by zero.
 */
export function convertUnitsExact(value: Rational, from: UnitDef, to: UnitDef): Rational {
  if (from.category !== to.category) {
    const message = `Cannot convert ${from.category} (${from.id}) to ${to.category} (${to.id}): ${dimensions(from, to)}.`;
    throw new ApiError('INCOMPATIBLE_UNITS', message, { param: 'to' });
  }
  return fromBase(toBase(value, from), to, from);
}

/**
 * Validates a request (value, decimals and rounding, then the units: the contract checks
 * validity before existence) and converts it.
 */
export function convertUnits(req: UnitConversionRequest, options: ConvertOptions = {}): UnitConversion {
  const value = parseDecimalValue(req.value, 'value');
  const decimals = parseDecimals(req.decimals);
  const rounding = parseRounding(req.rounding);
  const from = resolveUnit(req.from, 'from', options);
  const to = resolveUnit(req.to, 'to', options);
  if ('currency' in from || 'currency' in to) throw currencyError(from, to);
  const exact = convertUnitsExact(value, from, to);
  return {
    input: { value: req.value, unit: from.id },
    result: { value: formatDecimal(exact, decimals, rounding), unit: to.id },
    category: from.category,
  };
}
