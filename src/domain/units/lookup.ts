/**
 * Unit and category lookup (contract section 4): a unit by id (any case), then by symbol (exact
 * case: "mW" and "MW" differ by a factor of 10^9), then by alias (any case). Maps built once.
 */
import { ALIASES } from './aliases';
import { CATEGORIES, UNITS, type CategoryDef, type UnitDef } from './catalogue';

const byId = new Map(UNITS.map((u) => [u.id.toLowerCase(), u]));
const bySymbol = new Map(UNITS.map((u) => [u.symbol, u]));
const byAlias = new Map<string, UnitDef>();
for (const [id, aliases] of Object.entries(ALIASES)) {
  const unit = byId.get(id);
  if (unit === undefined) throw new Error(`aliases.ts names an unknown unit: ${id}`);
  for (const alias of aliases) byAlias.set(alias.toLowerCase(), unit);
}
const categoriesById = new Map(CATEGORIES.map((c) => [c.id.toLowerCase(), c]));
const unitsByCategory = new Map(CATEGORIES.map((c) => [c.id, UNITS.filter((u) => u.category === c.id)]));

/** The unit an id, symbol or alias names; the token is used as is (no trimming). */
export function findUnit(token: string): UnitDef | undefined {
  // An id as sent (the usual case) is found without a lower-cased copy of the token.
  const id = byId.get(token);
  if (id !== undefined) return id;
  const lower = token.toLowerCase();
  return byId.get(lower) ?? bySymbol.get(token) ?? byAlias.get(lower);
}

/** A category by id, any case. */
export function findCategory(id: string): CategoryDef | undefined {
  return categoriesById.get(id.toLowerCase());
}

/** The units of a category in catalogue order; empty for an unknown category. */
export function unitsOfCategory(categoryId: string): readonly UnitDef[] {
  const category = findCategory(categoryId);
  return category === undefined ? [] : (unitsByCategory.get(category.id) ?? []);
}

/** The documented aliases of a unit, by canonical id (any case); empty when there are none. */
export function aliasesOf(unitId: string): readonly string[] {
  const id = unitId.toLowerCase();
  // hasOwn: "constructor" or "__proto__" must not reach Object.prototype.
  return Object.hasOwn(ALIASES, id) ? (ALIASES[id] ?? []) : [];
}
