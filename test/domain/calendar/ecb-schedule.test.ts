import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, berlinDate, berlinOffsetMinutes } from '../../../src/domain/calendar/berlin-time';
import {
  isDue,
  isStale,
  memoizedPublicationLag,
  publicationLag,
  latestExpectedPublication,
  latestMaxAgeSeconds,
  memoizedLatestMaxAge,
  nextCheckDelayMs,
  nextPublicationTime,
  publicationTime,
} from '../../../src/domain/calendar/ecb-schedule';
import { easterSunday, isTargetBusinessDay, nextBusinessDay, previousBusinessDay } from '../../../src/domain/calendar/target-calendar';

/** A Berlin wall-clock time written with its offset, e.g. at('2026-04-14T16:00+02:00'). */
const at = (iso: string) => new Date(iso);

describe('the TARGET calendar', () => {
  it.each([
    [2000, '2000-04-23'],
    [2019, '2019-04-21'],
    [2024, '2024-03-31'],
    [2025, '2025-04-20'],
    [2026, '2026-04-05'],
    [2038, '2038-04-25'],
  ])('Easter Sunday %i is %s (anonymous Gregorian algorithm)', (year, date) => {
    expect(easterSunday(year)).toBe(date);
  });

  it.each([
    ['2024-03-29', 'Good Friday 2024'],
    ['2024-04-01', 'Easter Monday 2024'],
    ['2025-04-18', 'Good Friday 2025'],
    ['2025-04-21', 'Easter Monday 2025'],
    ['2026-04-03', 'Good Friday 2026'],
    ['2026-04-06', 'Easter Monday 2026'],
    ['2024-05-01', 'Labour Day 2024 (a Wednesday)'],
    ['2025-05-01', 'Labour Day 2025'],
    ['2024-12-25', 'Christmas Day 2024'],
    ['2024-12-26', '26 December 2024'],
    ['2026-01-01', 'New Year 2026'],
    ['2024-03-30', 'a Saturday'],
    ['2024-03-31', 'a Sunday'],
  ])('%s is not a business day (%s)', (date) => {
    expect(isTargetBusinessDay(date)).toBe(false);
  });

  it.each(['2024-03-28', '2024-04-02', '2024-12-24', '2024-12-27', '2024-12-31', '2026-04-13', '2026-05-04'])(
    '%s is a business day',
    (date) => {
      expect(isTargetBusinessDay(date)).toBe(true);
    },
  );

  it('steps over weekends and holidays', () => {
    expect(nextBusinessDay('2024-03-28')).toBe('2024-04-02');
    expect(previousBusinessDay('2024-04-02')).toBe('2024-03-28');
    expect(nextBusinessDay('2024-12-24')).toBe('2024-12-27');
    expect(previousBusinessDay('2026-01-02')).toBe('2025-12-31');
  });
});

describe('Berlin time', () => {
  it.each([
    ['2026-03-29T00:59:59Z', 60, 'the last second of CET'],
    ['2026-03-29T01:00:00Z', 120, 'CEST from 02:00 local on the last Sunday of March'],
    ['2026-10-25T00:59:59Z', 120, 'the last second of CEST'],
    ['2026-10-25T01:00:00Z', 60, 'CET again from 03:00 local on the last Sunday of October'],
    ['2026-07-01T12:00:00.750Z', 120, 'summer, with milliseconds'],
  ])('the offset at %s is %i minutes (%s)', (instant, minutes) => {
    expect(berlinOffsetMinutes(at(instant))).toBe(minutes);
  });

  it('the publication time is 16:00 Berlin: 15:00 UTC in winter, 14:00 UTC in summer, right across the switch', () => {
    expect(publicationTime('2026-03-27').toISOString()).toBe('2026-03-27T15:00:00.000Z');
    expect(publicationTime('2026-03-30').toISOString()).toBe('2026-03-30T14:00:00.000Z');
    expect(publicationTime('2026-10-23').toISOString()).toBe('2026-10-23T14:00:00.000Z');
    expect(publicationTime('2026-10-26').toISOString()).toBe('2026-10-26T15:00:00.000Z');
  });

  it('the Berlin date turns at local midnight, not UTC midnight', () => {
    expect(berlinDate(at('2026-04-13T22:30:00Z'))).toBe('2026-04-14');
    expect(berlinDate(at('2026-01-13T22:30:00Z'))).toBe('2026-01-13');
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
  });
});

describe('when a publication is expected', () => {
  it('the latest expected publication turns at 16:00 Berlin on business days only', () => {
    expect(latestExpectedPublication(at('2026-04-13T15:59:59+02:00'))).toBe('2026-04-10');
    expect(latestExpectedPublication(at('2026-04-13T16:00:00+02:00'))).toBe('2026-04-13');
    expect(latestExpectedPublication(at('2024-04-02T10:00:00+02:00'))).toBe('2024-03-28');
    expect(latestExpectedPublication(at('2024-04-01T18:00:00+02:00'))).toBe('2024-03-28');
    expect(latestExpectedPublication(at('2024-12-27T09:00:00+01:00'))).toBe('2024-12-24');
  });

  it('the next publication time skips Easter and the weekend', () => {
    expect(nextPublicationTime(at('2024-03-28T16:00:00+01:00')).toISOString()).toBe('2024-04-02T14:00:00.000Z');
    expect(nextPublicationTime(at('2026-04-13T15:00:00+02:00')).toISOString()).toBe('2026-04-13T14:00:00.000Z');
  });

  it('stale: the publication expected 2 hours after 16:00 is newer than the newest held, or nothing is held', () => {
    expect(isStale(undefined, at('2026-04-14T10:00:00+02:00'))).toBe(true);
    expect(isStale('2026-04-13', at('2026-04-14T17:59:59+02:00'))).toBe(false);
    expect(isStale('2026-04-13', at('2026-04-14T18:00:00+02:00'))).toBe(true);
    expect(isStale('2024-03-28', at('2024-04-01T20:00:00+02:00'))).toBe(false);
  });

  it('due (poll for it) from 16:00 until the day’s publication is held', () => {
    expect(isDue('2026-04-13', at('2026-04-14T15:59:00+02:00'))).toBe(false);
    expect(isDue('2026-04-13', at('2026-04-14T16:00:00+02:00'))).toBe(true);
    expect(isDue('2026-04-14', at('2026-04-14T16:10:00+02:00'))).toBe(false);
  });
});

describe('latestMaxAgeSeconds', () => {
  it('is an hour far from a publication, the time left just before one, and short while one is due', () => {
    expect(latestMaxAgeSeconds('2026-04-13', at('2026-04-14T10:00:00+02:00'))).toBe(3600);
    expect(latestMaxAgeSeconds('2026-04-13', at('2026-04-14T15:30:00+02:00'))).toBe(1800);
    expect(latestMaxAgeSeconds('2026-04-13', at('2026-04-14T16:05:00+02:00'))).toBe(60);
    expect(latestMaxAgeSeconds('2026-04-14', at('2026-04-14T16:05:00+02:00'))).toBe(3600);
    expect(latestMaxAgeSeconds('2026-04-13', at('2026-04-14T15:59:59.500+02:00'))).toBe(0);
  });

  it('is never negative, never over 3600, and never reaches past the next expected publication', () => {
    const instants = fc.date({ min: new Date('2024-01-01T00:00:00Z'), max: new Date('2027-12-31T00:00:00Z'), noInvalidDate: true });
    fc.assert(
      fc.property(instants, fc.integer({ min: 0, max: 3 }), (now, behind) => {
        let newest = latestExpectedPublication(now);
        for (let i = 0; i < behind; i++) newest = previousBusinessDay(newest);
        const seconds = latestMaxAgeSeconds(newest, now);
        const untilNext = (nextPublicationTime(now).getTime() - now.getTime()) / 1000;
        return seconds >= 0 && seconds <= 3600 && seconds <= untilNext && (behind === 0 || seconds <= 60);
      }),
      { numRuns: 2000 },
    );
  });
  it('the memoized form (asked on every request) answers as the definition over a clock running forward', () => {
    const memoized = memoizedLatestMaxAge();
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 7_200_000 }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 0, max: 1 }),
        (steps, behind) => {
          let t = new Date('2026-03-26T12:00:00Z').getTime();
          return steps.every((step) => {
            t += step;
            const now = new Date(t);
            const newest = behind ? previousBusinessDay(latestExpectedPublication(now)) : latestExpectedPublication(now);
            return memoized(newest, now) === latestMaxAgeSeconds(newest, now);
          });
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('how far the rates held are behind the calendar', () => {
  it.each([
    // newest held, now, publications due and not held, the first of them, stale (past 16:00 + 2 h)
    ['2026-04-13', '2026-04-14T15:00:00+02:00', 0, undefined, false], // Tuesday before 16:00
    ['2026-04-13', '2026-04-14T16:30:00+02:00', 1, '2026-04-14', false], // late, within the grace
    ['2026-04-13', '2026-04-14T18:30:00+02:00', 1, '2026-04-14', true],
    ['2026-04-02', '2026-04-07T12:00:00+02:00', 0, undefined, false], // Good Friday and Easter Monday are no publications
    ['2026-04-02', '2026-04-07T19:00:00+02:00', 1, '2026-04-07', true],
    ['2026-04-13', '2026-11-27T10:00:00+01:00', 162, '2026-04-14', true], // seven months behind
  ] as const)('newest %s at %s: %i missing from %s, stale %s', (newest, now, missing, firstMissing, stale) => {
    expect(publicationLag(newest, at(now))).toEqual({ missing, firstMissing, stale });
  });

  it('answers as publicationLag (and isStale) over a clock running forward across publications, weekends and the grace period', () => {
    const memoized = memoizedPublicationLag();
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 5_400_000 }), { minLength: 1, maxLength: 60 }),
        fc.constantFrom('2026-03-26', '2026-03-27', '2026-03-30'),
        (steps, newest) => {
          let t = new Date('2026-03-26T12:00:00Z').getTime();
          return steps.every((step) => {
            t += step;
            const lag = memoized(newest, new Date(t));
            return (
              JSON.stringify(lag) === JSON.stringify(publicationLag(newest, new Date(t))) && lag.stale === isStale(newest, new Date(t))
            );
          });
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('the next refresh check', () => {
  it('polls every 5 minutes ±20 % while a publication is due', () => {
    const now = at('2026-04-14T16:00:00+02:00');
    expect(nextCheckDelayMs('2026-04-13', now, 0)).toBe(240_000);
    expect(nextCheckDelayMs('2026-04-13', now, 0.999999)).toBeCloseTo(360_000, -2);
  });

  it('otherwise sleeps until just after the next 16:00, an hour at most', () => {
    expect(nextCheckDelayMs('2026-04-14', at('2026-04-15T15:30:00+02:00'), 0)).toBe(30 * 60_000);
    expect(nextCheckDelayMs('2026-04-14', at('2026-04-15T15:30:00+02:00'), 0.5)).toBe(30 * 60_000 + 15_000);
    expect(nextCheckDelayMs('2026-04-14', at('2026-04-14T16:30:00+02:00'), 0)).toBe(3_600_000);
  });
});
