import { knownCurrency } from './currency/codes';
import { convertUnits, type UnitConversion, type UnitConversionRequest } from './units/convert';

const isCurrency = (token: string): boolean => knownCurrency(token) !== undefined;

/**
 * A unit conversion as the API answers it: a currency at one end is INCOMPATIBLE_UNITS (a real
 * thing, just not a unit), currencies at both ends point to the currency route, anything else
 * unknown is UNKNOWN_UNIT. Inputs are validated first, in the contract's order.
 */
export function convertUnitsOrExplain(request: UnitConversionRequest): UnitConversion {
  return convertUnits(request, { isCurrency });
}
