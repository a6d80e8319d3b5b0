import { ApiError } from '../errors';
import { quoteInput } from '../quote-input';
import { CATEGORIES, UNITS, type CategoryDef, type UnitDef } from './catalogue';
import { findCategory, findUnit, unitsOfCategory } from './lookup';
import { didYouMean } from '../nearest-names';
import { suggestUnits } from './expression/suggest';

/**
 * The catalogue as the API answers it. A lookup by path (`/v1/units/{id}`) that finds nothing is
 * NOT_FOUND; an unknown `category` filter is a bad input (INVALID_REQUEST), as the contract says.
 */
export function listCategories(): CategoryDef[] {
  return [...CATEGORIES];
}

export function getCategory(id: string): CategoryDef {
  const category = findCategory(id);
  if (!category) throw new ApiError('NOT_FOUND', `Category ${quoteInput(id)} does not exist.`, { param: 'id', seeAlso: 'categories' });
  return category;
}

export function listUnits(category?: string | null): UnitDef[] {
  if (category === null || category === undefined) return [...UNITS];
  const found = findCategory(category);
  if (!found) {
    throw new ApiError('INVALID_REQUEST', `Category ${quoteInput(category)} does not exist.`, { param: 'category', seeAlso: 'categories' });
  }
  return [...unitsOfCategory(found.id)];
}

export function getUnit(id: string): UnitDef {
  const unit = findUnit(id);
  if (!unit) {
    throw new ApiError('NOT_FOUND', `Unit ${quoteInput(id)} does not exist${didYouMean(suggestUnits(id))}.`, {
      param: 'id',
      seeAlso: 'units',
    });
  }
  return unit;
}
