/**
 * Bounds of a unit expression. They keep the work of one expression small and fixed whatever a
 * caller sends: the exact factor of an expression is a product of at most MAX_FACTORS catalogue
 * factors, each raised to at most MAX_EXPONENT, so its digits stay in the thousands, and a parsed
 * expression held in the cache is at most a few kilobytes.
 */
export const MAX_EXPRESSION_LENGTH = 200;
/** Largest magnitude of an exponent, written or reached through parentheses: (m^4)^3 is m^12. */
export const MAX_EXPONENT = 12;
/** Most unit and currency names in one expression. */
export const MAX_FACTORS = 16;
