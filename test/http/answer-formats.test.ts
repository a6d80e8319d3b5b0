import { describe, expect, it } from 'vitest';
import { negotiate, type MediaType } from '../../src/http/answer/answer-formats';

const OFFERED: MediaType[] = ['application/json', 'text/csv', 'application/x-ndjson'];

describe('negotiate: the media type an Accept header gets (RFC 9110 12.5.1)', () => {
  it.each<[string | null, MediaType]>([
    [null, 'application/json'],
    ['', 'application/json'],
    ['   ', 'application/json'],
    ['*/*', 'application/json'],
    ['application/json', 'application/json'],
    ['text/csv', 'text/csv'],
    ['TEXT/CSV', 'text/csv'],
    ['text/csv; charset=utf-8', 'text/csv'],
    ['text/*', 'text/csv'],
    ['application/x-ndjson', 'application/x-ndjson'],
    ['application/*', 'application/json'],
    // Quality first, then the server's order.
    ['text/csv;q=0.5, application/json', 'application/json'],
    ['text/csv, application/json;q=0.9', 'text/csv'],
    ['text/csv;q=0.9, application/x-ndjson', 'application/x-ndjson'],
    ['text/csv, application/x-ndjson', 'text/csv'],
    ['application/x-ndjson, text/csv', 'text/csv'],
    // The most specific range decides a type's quality.
    ['*/*;q=0.1, text/csv', 'text/csv'],
    ['text/csv;q=0, */*', 'application/json'],
    ['application/json;q=0, */*;q=0.5', 'text/csv'],
    ['text/*;q=0.8, text/csv;q=0.2, application/json;q=0.5', 'application/json'],
    // Nothing acceptable, or nonsense: JSON, as the contract has no 406.
    ['image/png', 'application/json'],
    ['text/csv;q=0', 'application/json'],
    ['application/json;q=0', 'application/json'],
    ['garbage', 'application/json'],
    [',,,', 'application/json'],
    ['text/csv;q=2', 'text/csv'],
    ['text/csv;q=abc', 'text/csv'],
  ])('%j → %s', (accept, expected) => {
    expect(negotiate(accept, OFFERED)).toBe(expected);
  });

  it('reads a long header only so far', () => {
    expect(negotiate(`${'image/png, '.repeat(10_000)}text/csv`, OFFERED)).toBe('application/json');
    expect(negotiate(`text/csv, ${'image/png, '.repeat(10_000)}`, OFFERED)).toBe('text/csv');
  });
});
