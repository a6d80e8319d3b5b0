import { describe, expect, it } from 'vitest';
import { counted } from '../../src/domain/counted';

describe('counted writes an English count with its noun in the right number', () => {
  it.each([
    [0, 'currency', 'currencies', '0 currencies'],
    [1, 'currency', 'currencies', '1 currency'],
    [2, 'currency', 'currencies', '2 currencies'],
    [1, 'unit', undefined, '1 unit'],
    [1000, 'unit', undefined, '1,000 units'],
  ])('%i %s: %s', (n, one, other, text) => {
    expect(counted(n, one, other)).toBe(text);
  });
});
