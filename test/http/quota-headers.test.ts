import { describe, expect, it } from 'vitest';
import { quotaHeaders } from '../../src/http/answer/limit-headers';

describe('quota headers (the edge renders the quota state; the domain builds no header)', () => {
  it('carry the limit, what is left (never negative) and the seconds to the reset', () => {
    const now = new Date('2026-03-31T23:00:00.000Z');
    expect(quotaHeaders({ limit: 1000, used: 998 }, now)).toEqual({
      'x-quota-limit': '1000',
      'x-quota-remaining': '2',
      'x-quota-reset': '3600',
    });
    expect(quotaHeaders({ limit: 1000, used: 1003 }, now)['x-quota-remaining']).toBe('0');
  });
});
