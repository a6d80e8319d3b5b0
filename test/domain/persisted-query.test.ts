import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errors';
import { documentHash, persistedQueryStep } from '../../src/domain/persisted-query';

const DOC = '{ categories { id } }';
const HASH = documentHash(DOC);
const ext = (persistedQuery: unknown) => ({ persistedQuery });

describe('persistedQueryStep', () => {
  it('names a document by the SHA-256 of its UTF-8 text in lower-case hex', () => {
    expect(documentHash('{__typename}')).toBe('ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38');
    expect(documentHash('{ unit(id: "µm") { id } }')).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each([
    ['no extensions', DOC, undefined, { kind: 'none' }],
    ['extensions without persistedQuery', DOC, { other: 1 }, { kind: 'none' }],
    ['persistedQuery null', DOC, ext(null), { kind: 'none' }],
    ['a hash alone', undefined, ext({ version: 1, sha256Hash: HASH }), { kind: 'lookup', hash: HASH }],
    ['a hash with an empty query', '', ext({ version: 1, sha256Hash: HASH }), { kind: 'lookup', hash: HASH }],
    ['a hash with a null query', null, ext({ version: 1, sha256Hash: HASH }), { kind: 'lookup', hash: HASH }],
    ['a document with its hash', DOC, ext({ version: 1, sha256Hash: HASH }), { kind: 'register', hash: HASH, document: DOC }],
    ['a query that is no string (Yoga refuses it next)', 12, ext({ version: 1, sha256Hash: HASH }), { kind: 'none' }],
  ])('%s', (_, query, extensions, expected) => {
    expect(persistedQueryStep(query, extensions)).toEqual(expected);
  });

  it.each([
    ['a mismatched hash', '{ units { id } }', ext({ version: 1, sha256Hash: HASH }), /not the SHA-256 of the query/],
    ['another version', undefined, ext({ version: 2, sha256Hash: HASH }), /version must be 1 \(got 2\)/],
    ['no version', undefined, ext({ sha256Hash: HASH }), /version must be 1 \(got nothing\)/],
    ['upper-case hex', undefined, ext({ version: 1, sha256Hash: HASH.toUpperCase() }), /64 lower-case hex/],
    ['a short hash', undefined, ext({ version: 1, sha256Hash: HASH.slice(1) }), /64 lower-case hex/],
    ['a number for the hash', undefined, ext({ version: 1, sha256Hash: 5 }), /64 lower-case hex/],
    ['a string for persistedQuery', undefined, ext('abc'), /must be an object/],
    ['an array for persistedQuery', undefined, ext([]), /must be an object/],
  ])('refuses %s with INVALID_REQUEST', (_, query, extensions, message) => {
    let thrown: unknown;
    try {
      persistedQueryStep(query, extensions);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).code).toBe('INVALID_REQUEST');
    expect((thrown as ApiError).param).toBe('extensions');
    expect((thrown as ApiError).message).toMatch(message);
  });
});
