import { describe, expect, it } from 'vitest';
import { KnownPrices } from '../../src/graphql/known-prices';

describe('the prices of documents sent before', () => {
  it('are known by the text and the operation, and only those', () => {
    const prices = new KnownPrices();
    prices.remember('{ units { id } }', undefined, 1);
    prices.remember('query A { a: units { id } b: units { id } } query B { units { id } }', 'A', 2);
    expect(prices.get('{ units { id } }', undefined)).toBe(1);
    expect(prices.get('{ units { id } }', '')).toBe(1);
    expect(prices.get('{ units { id } } ', undefined)).toBeUndefined();
    expect(prices.get('query A { a: units { id } b: units { id } } query B { units { id } }', 'A')).toBe(2);
    expect(prices.get('query A { a: units { id } b: units { id } } query B { units { id } }', 'B')).toBeUndefined();
  });

  it('keep at most 10,000, the oldest leaving first', () => {
    const prices = new KnownPrices();
    for (let i = 0; i <= 10_000; i++) prices.remember(`{ a${i}: units { id } }`, undefined, i);
    expect(prices.get('{ a0: units { id } }', undefined)).toBeUndefined();
    expect(prices.get('{ a1: units { id } }', undefined)).toBe(1);
    expect(prices.get('{ a10000: units { id } }', undefined)).toBe(10_000);
  });
});
