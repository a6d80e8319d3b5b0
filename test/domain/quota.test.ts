import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errors';
import {
  currentDay,
  currentMonth,
  groupThousands,
  isUsageDay,
  lastDays,
  isQuotaMonth,
  quotaExceeded,
  secondsToNextMonth,
  startOfNextMonth,
} from '../../src/domain/quota';

const DAY = 86_400;

describe('the quota month is the UTC calendar month', () => {
  it.each([
    ['2026-03-15T12:00:00.000Z', '2026-03'],
    ['2026-03-01T00:00:00.000Z', '2026-03'],
    ['2026-02-28T23:59:59.999Z', '2026-02'],
    ['2025-12-31T23:59:59.999Z', '2025-12'],
    ['2026-01-01T00:00:00.000Z', '2026-01'],
    // 00:30 on 1 April in Berlin is still March in UTC.
    ['2026-03-31T22:30:00.000Z', '2026-03'],
  ])('%s is in %s', (instant, month) => {
    expect(currentMonth(new Date(instant))).toBe(month);
  });

  it.each([
    ['2026-03', true],
    ['1999-12', true],
    ['2026-3', false],
    ['2026-13', false],
    ['2026-00', false],
    ['2026-03-01', false],
  ])('isQuotaMonth(%j) is %s', (text, ok) => {
    expect(isQuotaMonth(text)).toBe(ok);
  });
});

describe('Retry-After of QUOTA_EXCEEDED is the seconds to 00:00 UTC on the 1st', () => {
  it.each([
    // end of a 31-day month
    ['2026-03-31T23:59:59.000Z', '2026-04-01T00:00:00.000Z', 1],
    // end of February: 28 days in 2026, 29 in 2028 (leap year), 28 in 2100 (not a leap year)
    ['2026-02-28T00:00:00.000Z', '2026-03-01T00:00:00.000Z', DAY],
    ['2028-02-28T00:00:00.000Z', '2028-03-01T00:00:00.000Z', 2 * DAY],
    ['2100-02-28T00:00:00.000Z', '2100-03-01T00:00:00.000Z', DAY],
    // 31 December rolls over into January of the next year
    ['2025-12-31T23:00:00.000Z', '2026-01-01T00:00:00.000Z', 3600],
    // the first instant of a month waits for the whole month
    ['2026-04-01T00:00:00.000Z', '2026-05-01T00:00:00.000Z', 30 * DAY],
    // a fraction of a second rounds up, never to 0
    ['2026-04-30T23:59:59.999Z', '2026-05-01T00:00:00.000Z', 1],
    ['2026-04-30T23:59:58.001Z', '2026-05-01T00:00:00.000Z', 2],
  ])('at %s the quota resets at %s, in %i s', (now, reset, seconds) => {
    expect(startOfNextMonth(new Date(now)).toISOString()).toBe(reset);
    expect(secondsToNextMonth(new Date(now))).toBe(seconds);
  });
});

describe('quotaExceeded', () => {
  it('is a 429 QUOTA_EXCEEDED to be retried after the seconds to the next month (data: the edge sends Retry-After)', () => {
    const error = quotaExceeded(new Date('2026-03-31T23:00:00.000Z'), 1000);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'QUOTA_EXCEEDED', status: 429, details: { retryAfterSeconds: 3600 } });
    expect(error.message).toBe(
      'The monthly quota of 1,000 conversions is used up; it resets at 2026-04-01T00:00:00.000Z. Wait for the reset, or ask the operator of this server to move the account to a larger plan.',
    );
  });
});

describe('groupThousands writes a count as en-US does', () => {
  it.each([
    [0, '0'],
    [999, '999'],
    [1000, '1,000'],
    [100_000, '100,000'],
    [2_000_000, '2,000,000'],
    [Number.MAX_SAFE_INTEGER, '9,007,199,254,740,991'],
    [-1500, '-1,500'],
    [1.5, '1.5'],
  ])('%s → %s', (n, text) => {
    expect(groupThousands(n)).toBe(text);
  });

  it("equals toLocaleString('en-US') for every safe whole number", () => {
    fc.assert(fc.property(fc.maxSafeNat(), (n) => groupThousands(n) === n.toLocaleString('en-US')));
  });
});

describe('usage days', () => {
  it.each([
    ['2026-03-31T23:59:59.999Z', '2026-03-31'],
    ['2026-04-01T00:00:00.000Z', '2026-04-01'],
  ])('the UTC day of %s is %s', (instant, day) => {
    expect(currentDay(new Date(instant))).toBe(day);
  });

  it.each([
    ['2026-03-02T10:00:00Z', 3, ['2026-02-28', '2026-03-01', '2026-03-02']],
    ['2028-03-01T00:00:00Z', 3, ['2028-02-28', '2028-02-29', '2028-03-01']],
    ['2027-01-01T23:59:59Z', 2, ['2026-12-31', '2027-01-01']],
    ['2026-11-27T12:00:00Z', 1, ['2026-11-27']],
  ] as const)('the last days up to %s (%d) are %j', (instant, count, days) => {
    expect(lastDays(new Date(instant), count)).toEqual(days);
  });

  it('31 days end today and start 30 days before', () => {
    const days = lastDays(new Date('2026-03-31T12:00:00Z'), 31);
    expect([days.length, days[0], days.at(-1)]).toEqual([31, '2026-03-01', '2026-03-31']);
  });

  it.each([
    ['2026-03-31', true],
    ['2028-02-29', true],
    ['2026-02-29', false],
    ['2026-3-1', false],
    ['2026-03', false],
  ])('%s is a usage day: %s', (text, valid) => {
    expect(isUsageDay(text)).toBe(valid);
  });
});
