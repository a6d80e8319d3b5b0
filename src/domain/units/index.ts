/** The units domain: catalogue, lookup and exact conversion. Pure: no transport or storage. */
export { CATEGORIES, UNITS, type CategoryDef, type UnitDef, type UnitKind } from './catalogue';
export { ALIASES } from './aliases';
export { aliasesOf, findCategory, findUnit, unitsOfCategory } from './lookup';
export { getCategory, getUnit, listCategories, listUnits } from './queries';
export {
  convertUnits,
  convertUnitsExact,
  type ConvertOptions,
  type UnitConversion,
  type UnitConversionRequest,
} from './convert';
export { PI_DIGITS, parseFactor } from './factors';
