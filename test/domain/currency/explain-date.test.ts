import { describe, expect, it } from 'vitest';
import { publicationLag } from '../../../src/domain/calendar/ecb-schedule';
import { explainDate, explainLatest, nextPublication } from '../../../src/domain/currency/explain-date';
import { notQuoted, notQuotedMessage } from '../../../src/domain/currency/not-quoted';

describe('every date explained', () => {
  it.each([
    ['2024-03-28', '2024-03-28', false, undefined],
    ['2024-03-30', '2024-03-28', true, 'weekend'], // a Saturday
    ['2024-03-29', '2024-03-28', true, 'holiday'], // Good Friday
    ['2024-04-01', '2024-03-28', true, 'holiday'], // Easter Monday
    ['2024-12-26', '2024-12-24', true, 'holiday'],
    ['2024-04-03', '2024-04-02', true, 'not-yet-published'], // a Wednesday after the newest held
    ['2024-03-27', '2024-03-26', true, 'no-publication'], // a business day the data lacks
  ])('%s answered by %s: carried forward %s (%s)', (requested, publication, carriedForward, reason) => {
    const answer = explainDate(requested, publication, '2024-04-02');
    expect(answer).toEqual(
      reason === undefined ? { requested, publication, carriedForward } : { requested, publication, carriedForward, reason },
    );
  });

  it('explains the latest routes from today in Berlin', () => {
    // Saturday 2024-03-30 12:00 UTC: the newest publication is Thursday's (Friday was Good Friday).
    expect(explainLatest('2024-03-28', new Date('2024-03-30T12:00:00Z'))).toEqual({
      requested: '2024-03-30',
      publication: '2024-03-28',
      carriedForward: true,
      reason: 'weekend',
    });
    // 23:30 UTC on 2024-03-27 is already the 28th in Berlin, before 16:00.
    expect(explainLatest('2024-03-27', new Date('2024-03-27T23:30:00Z'))).toMatchObject({
      requested: '2024-03-28',
      reason: 'not-yet-published',
    });
    expect(explainLatest('2024-03-28', new Date('2024-03-28T15:30:00Z'))).toEqual({
      requested: '2024-03-28',
      publication: '2024-03-28',
      carriedForward: false,
    });
  });

  it.each([
    // Thursday before 16:00 CET (UTC+1): today's, at 15:00 UTC.
    [
      '2024-03-27',
      '2024-03-28T10:00:00Z',
      { date: '2024-03-28', expectedAt: '2024-03-28T15:00:00.000Z', overdue: false, missingPublications: 0 },
    ],
    // Thursday evening: the next TARGET day is Tuesday (Good Friday, Easter Monday); 16:00 CEST is 14:00 UTC.
    [
      '2024-03-28',
      '2024-03-28T18:00:00Z',
      { date: '2024-04-02', expectedAt: '2024-04-02T14:00:00.000Z', overdue: false, missingPublications: 0 },
    ],
    // Thursday 17:00 CET without Thursday's publication: Thursday's, a moment past, overdue.
    [
      '2024-03-27',
      '2024-03-28T16:00:00Z',
      { date: '2024-03-28', expectedAt: '2024-03-28T15:00:00.000Z', overdue: true, missingPublications: 1 },
    ],
    // Months behind (a history that stops in April, a clock in November): the first missing, overdue, with the count.
    [
      '2026-04-13',
      '2026-11-26T10:00:00Z',
      { date: '2026-04-14', expectedAt: '2026-04-14T14:00:00.000Z', overdue: true, missingPublications: 161 },
    ],
    [
      '2026-04-13',
      '2026-11-26T16:00:00Z',
      { date: '2026-04-14', expectedAt: '2026-04-14T14:00:00.000Z', overdue: true, missingPublications: 162 },
    ],
  ])('newest %s at %s: the next publication is %j', (newest, now, expected) => {
    expect(nextPublication(newest, new Date(now))).toEqual(expected);
  });

  it('is never both to come and overdue', () => {
    for (const [newest, now] of [
      ['2024-03-27', '2024-03-28T16:00:00Z'],
      ['2026-04-13', '2026-11-26T10:00:00Z'],
      ['2024-03-28', '2024-03-28T18:00:00Z'],
    ] as const) {
      const next = nextPublication(newest, new Date(now));
      expect(next.overdue && next.expectedAt > now, `${newest} at ${now}`).toBe(false);
    }
  });
});

describe('rates behind the calendar are called stale', () => {
  // Seven months behind: the newest held is 2025-10-15, the clock 2026-05-05 12:00 Berlin.
  const NOW = new Date('2026-05-05T10:00:00Z');
  const lag = publicationLag('2025-10-15', NOW);

  it.each([
    ['2026-05-04', 'stale'], // a business day: not 'not-yet-published', it is long published
    ['2026-05-01', 'stale'], // a TARGET holiday, but its answer should be 2026-04-30's, not October's
    ['2026-05-02', 'stale'], // a Saturday, likewise
    ['2025-10-16', 'stale'], // the first missing publication
    ['2025-10-18', 'stale'], // a Saturday after the missing Thursday and Friday
  ] as const)('%s answered by the newest held: %s', (requested, reason) => {
    const answer = explainDate(requested, '2025-10-15', '2025-10-15', lag);
    if (reason === 'stale')
      expect(answer).toEqual({ requested, publication: '2025-10-15', carriedForward: true, reason, missingPublications: lag.missing });
    else expect(answer.reason).toBe(reason);
  });

  it('keeps the calendar reasons for days the rates held cover', () => {
    expect(explainDate('2025-10-12', '2025-10-10', '2025-10-15', lag)).toMatchObject({ reason: 'weekend' });
    expect(explainDate('2025-10-14', '2025-10-13', '2025-10-15', lag)).toMatchObject({ reason: 'no-publication' });
    expect(explainDate('2025-10-15', '2025-10-15', '2025-10-15', lag)).toEqual({
      requested: '2025-10-15',
      publication: '2025-10-15',
      carriedForward: false,
    });
  });

  it('counts the publications missing', () => {
    expect(lag).toMatchObject({ missing: 137, firstMissing: '2025-10-16', stale: true });
    expect(explainLatest('2025-10-15', NOW)).toEqual({
      requested: '2026-05-05',
      publication: '2025-10-15',
      carriedForward: true,
      reason: 'stale',
      missingPublications: 137,
    });
  });

  it('is not stale late on the day of a publication, within the grace: not yet published', () => {
    // Tuesday 2024-04-02 (after Good Friday and Easter Monday), the newest held Thursday 2024-03-28: at 17:00
    // Berlin Tuesday's publication is due but within the two hours' grace; at 18:30 it is stale.
    expect(explainLatest('2024-03-28', new Date('2024-04-02T15:00:00Z'))).toMatchObject({ reason: 'not-yet-published' });
    expect(explainLatest('2024-03-28', new Date('2024-04-02T16:30:00Z'))).toMatchObject({ reason: 'stale', missingPublications: 1 });
  });
});

describe('RATE_NOT_FOUND says when the currency was last quoted, and the fixed rate to use', () => {
  const span = (first: string, last: string) => ({ first, last });

  it.each([
    [
      'HRK',
      { date: '2023-01-02' },
      span('2005-04-01', '2022-12-30'),
      'HRK was last quoted on 2022-12-30; since 2023-01-01 1 EUR = 7.53450 HRK (irrevocable).',
    ],
    [
      'BGN',
      { date: '2026-01-02' },
      span('2000-07-19', '2025-12-31'),
      'BGN was last quoted on 2025-12-31; since 2026-01-01 1 EUR = 1.95583 BGN (irrevocable).',
    ],
    [
      'ROL',
      { date: '2005-07-01' },
      span('1999-01-04', '2005-06-30'),
      'ROL was last quoted on 2005-06-30; since 2005-07-01 1 RON = 10000 ROL (redenomination).',
    ],
    [
      'TRL',
      { start: '2005-01-03', end: '2005-12-30' },
      span('1999-01-04', '2004-12-31'),
      'TRL was last quoted on 2004-12-31; since 2005-01-01 1 TRY = 1000000 TRL (redenomination).',
    ],
    [
      'RUB',
      { date: '2022-03-02' },
      span('2005-04-01', '2022-03-01'),
      'RUB was last quoted on 2022-03-01; the ECB has not quoted it since.',
    ],
    [
      'CNY',
      { date: '2004-06-01' },
      span('2005-04-01', '2026-04-13'),
      'CNY was first quoted on 2005-04-01; the ECB has no CNY rate on 2004-06-01.',
    ],
    [
      'ISK',
      { start: '2010-01-01', end: '2010-12-31' },
      span('1999-01-04', '2026-04-13'),
      'The ECB did not quote ISK from 2010-01-01 to 2010-12-31 (it quoted ISK from 1999-01-04 to 2026-04-13, with gaps).',
    ],
    ['XAU', { date: '2024-01-02' }, undefined, 'The ECB has no XAU rate on 2024-01-02: no stored publication quotes XAU.'],
  ] as const)('%s %j', (code, asked, quoted, message) => {
    expect(notQuotedMessage(code, asked, quoted)).toBe(message);
  });

  it('is a RATE_NOT_FOUND blaming the parameter', () => {
    expect(notQuoted('HRK', { date: '2023-01-02' }, span('2005-04-01', '2022-12-30'), 'symbols')).toMatchObject({
      code: 'RATE_NOT_FOUND',
      status: 404,
      param: 'symbols',
    });
  });
});
