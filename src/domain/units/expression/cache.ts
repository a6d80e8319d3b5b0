/**
 * Parsing a unit expression once: a bounded least-recently-used cache of compiled expressions by
 * their text, so a repeated expression costs a map lookup, as a plain unit does. An entry is at
 * most MAX_EXPRESSION_LENGTH characters and MAX_FACTORS names, so the cache is bounded in bytes
 * too. Only expressions that parse are kept: a refusal is cheap to repeat, and keeping refusals
 * would let a flood of garbage evict the expressions callers actually use.
 */
import { ApiError } from '../../errors';
import { findUnit } from '../lookup';
import { compileTerms, wholeUnit, type CompiledExpression, type Compound } from './compile';
import { expressionError } from './errors';
import { MAX_EXPRESSION_LENGTH } from './limits';
import { parseTerms } from './parse';

/** A Map in insertion order is an LRU list: a hit moves its key to the end, eviction takes the first. */
export class LruCache<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`LruCache capacity must be a positive integer, got ${capacity}`);
  }

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
  }

  get size(): number {
    return this.entries.size;
  }
}

export const EXPRESSION_CACHE_SIZE = 1000;
const cache = new LruCache<string, Compound>(EXPRESSION_CACHE_SIZE);

/**
 * `from` or `to` as an expression. A string that is a catalogue unit (by today's lookup: "km/h",
 * "L/100 km" and "m³" included) is that unit; anything else is parsed as an expression. Throws
 * INVALID_REQUEST for what cannot be read; unknown names are left for resolveExpression, which
 * knows the rate table.
 */
export function parseExpression(text: unknown, param: string): CompiledExpression {
  if (typeof text !== 'string' || text === '') {
    throw new ApiError('INVALID_REQUEST', `${param} must be a unit or a unit expression (a non-empty string).`, { param });
  }
  const unit = findUnit(text);
  if (unit !== undefined) return wholeUnit(text, unit);
  // Counted in characters (code points), as the OpenAPI document's maxLength counts them.
  if (text.length > MAX_EXPRESSION_LENGTH && [...text].length > MAX_EXPRESSION_LENGTH) {
    throw expressionError(param, text, `it is longer than ${MAX_EXPRESSION_LENGTH} characters`);
  }
  const cached = cache.get(text);
  if (cached !== undefined) return cached;
  const compiled = compileTerms(text, param, parseTerms(text, param));
  cache.set(text, compiled);
  return compiled;
}

/** How many expressions the cache holds (for tests of its bound). */
export const cachedExpressions = (): number => cache.size;
