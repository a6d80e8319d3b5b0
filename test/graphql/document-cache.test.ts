import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { boundedParserCaches, ByteBoundedCache, documentBytes, DOCUMENT_CACHE_BYTES } from '../../src/graphql/document-cache';
import { typenameDocument } from '../helpers/hostile-documents';

const sized = (options: { maxBytes: number; maxEntries: number }) => new ByteBoundedCache<number>(options, (_key, value) => value);

describe('ByteBoundedCache', () => {
  it('drops the least recently used entries once their bytes pass the budget', () => {
    const cache = sized({ maxBytes: 100, maxEntries: 10 });
    cache.set('a', 10);
    cache.set('b', 10);
    cache.set('c', 10);
    expect(cache.get('a')).toBe(10);
    for (const key of ['d', 'e', 'f', 'g', 'h', 'i', 'j', 'k']) cache.set(key, 10);
    // 110 bytes asked for: `b`, the least recently used, went; `a` was read after it.
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(10);
    expect(cache.bytes).toBe(100);
  });

  it('keeps at most maxEntries whatever their size', () => {
    const cache = sized({ maxBytes: 1_000_000, maxEntries: 3 });
    for (const key of ['a', 'b', 'c', 'd']) cache.set(key, 1);
    expect(cache.size).toBe(3);
    expect(cache.get('a')).toBeUndefined();
  });

  it('does not keep an entry larger than an eighth of the budget', () => {
    const cache = sized({ maxBytes: 800, maxEntries: 10 });
    cache.set('small', 100);
    cache.set('large', 101);
    expect(cache.get('large')).toBeUndefined();
    expect(cache.get('small')).toBe(100);
  });

  it('counts an entry set again once', () => {
    const cache = sized({ maxBytes: 800, maxEntries: 10 });
    cache.set('a', 50);
    cache.set('a', 60);
    expect(cache.bytes).toBe(60);
    expect(cache.size).toBe(1);
  });
});

describe('documentBytes', () => {
  it('grows with the tokens a document keeps, not only with its length', () => {
    const dense = `{${'a '.repeat(500)}}`;
    const spaced = `{${'a          '.repeat(100)}}`;
    expect(dense.length).toBeLessThan(spaced.length);
    expect(documentBytes(dense, parse(dense))).toBeGreaterThan(documentBytes(spaced, parse(spaced)));
  });

  it('estimates at least what graphql-js really keeps for the densest documents within 16 KiB', () => {
    // Measured heap per document on graphql 16 (Node 20): at most about 290 bytes per character.
    for (const unit of ['a ', 'a{b} ', 'a@b ', 'a(b:{c:1}) ']) {
      const text = `{${unit.repeat(Math.floor(16_000 / unit.length))}}`;
      expect(documentBytes(text, parse(text))).toBeGreaterThan(300 * text.length);
    }
  });
});

describe('boundedParserCaches', () => {
  it('keeps no 16 KiB document of __typename aliases under the server budget, and a hundred ordinary ones', () => {
    const { documentCache } = boundedParserCaches(DOCUMENT_CACHE_BYTES);
    for (let i = 0; i < 20; i++) documentCache.set(typenameDocument(i), parse(typenameDocument(i)));
    expect(documentCache.size).toBe(0);
    const ordinary = (i: number) =>
      `query Q${i} { unit(id: "m") { id name symbol aliases } convert(value: "1", from: "ft", to: "m") { result { value unit } } }`;
    for (let i = 0; i < 100; i++) documentCache.set(ordinary(i), parse(ordinary(i)));
    expect(documentCache.size).toBe(100);
    expect(documentCache.bytes).toBeLessThanOrEqual(DOCUMENT_CACHE_BYTES);
  });
});
