import { describe, expect, it } from 'vitest';
import { cachedExpressions, EXPRESSION_CACHE_SIZE, LruCache, parseExpression } from '../../../src/domain/units/expression';

describe('the least-recently-used cache', () => {
  it('holds at most its capacity, evicting the entry used longest ago', () => {
    const cache = new LruCache<string, number>(3);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect(cache.get('a')).toBe(1); // a is now the most recent
    cache.set('d', 4);
    expect(cache.size).toBe(3);
    expect(cache.get('b')).toBeUndefined();
    expect([cache.get('a'), cache.get('c'), cache.get('d')]).toEqual([1, 3, 4]);
  });

  it('replaces an entry set twice without growing', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('a', 2);
    expect(cache.size).toBe(1);
    expect(cache.get('a')).toBe(2);
  });

  it.each([0, -1, 1.5])('refuses a capacity of %s', (capacity) => {
    expect(() => new LruCache(capacity)).toThrow(RangeError);
  });
});

describe('parsed expressions are cached by their text', () => {
  it('does not keep refusals, nor whole catalogue units (a map lookup already)', () => {
    const before = cachedExpressions();
    expect(before).toBeLessThan(EXPRESSION_CACHE_SIZE); // else a new entry would not change the size
    expect(() => parseExpression('m^99999*s', 'from')).toThrow();
    parseExpression('km/h', 'from');
    parseExpression('kilometer', 'from');
    expect(cachedExpressions()).toBe(before);
  });
  it('answers a repeated expression with the same parsed object', () => {
    const first = parseExpression('kg*m/s^2', 'from');
    expect(parseExpression('kg*m/s^2', 'to')).toBe(first);
  });

  it(`keeps at most ${EXPRESSION_CACHE_SIZE} expressions however many are sent`, () => {
    for (let i = 0; i <= EXPRESSION_CACHE_SIZE + 50; i++) parseExpression(`m^${i % 13}*s^-${i % 11}*kg^${i % 7}*zz${i}`, 'from');
    expect(cachedExpressions()).toBe(EXPRESSION_CACHE_SIZE);
  });
});
