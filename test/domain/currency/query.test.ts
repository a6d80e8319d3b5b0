import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/domain/errors';
import { parseGroup } from '../../../src/domain/currency/query';

describe('parseGroup', () => {
  it('takes the contract enum as written, day by default', () => {
    expect(parseGroup(undefined)).toBe('day');
    expect(parseGroup('month')).toBe('month');
    expect(parseGroup('quarter')).toBe('quarter');
  });

  it('refuses another case, pointing at the lower-case value', () => {
    for (const [value, hint] of [
      ['MONTH', 'month'],
      ['Week', 'week'],
    ] as const) {
      const error = (() => {
        try {
          parseGroup(value);
        } catch (e) {
          return e;
        }
      })() as ApiError;
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ code: 'INVALID_REQUEST', param: 'group' });
      expect(error.message).toContain(`(lower case: ${hint})`);
    }
    expect(() => parseGroup('fortnight')).toThrow(/^group must be one of day, week, month, quarter, year\.$/);
  });
});
