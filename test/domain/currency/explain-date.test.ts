import { describe, expect, it } from 'vitest';
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
    expect(answer).toEqual(reason === undefined ? { requested, publication, carriedForward } : { requested, publication, carriedForward, reason });
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
    expect(explainLatest('2024-03-27', new Date('2024-03-27T23:30:00Z'))).toMatchObject({ requested: '2024-03-28', reason: 'not-yet-published' });
    expect(explainLatest('2024-03-28', new Date('2024-03-28T15:30:00Z'))).toEqual({ requested: '2024-03-28', publication: '2024-03-28', carriedForward: false });
  });

  it.each([
    // Thursday before 16:00 CET (UTC+1): today's, at 15:00 UTC.
    ['2024-03-27', '2024-03-28T10:00:00Z', { date: '2024-03-28', expectedAt: '2024-03-28T15:00:00.000Z', overdue: false }],
    // Thursday evening: the next TARGET day is Tuesday (Good Friday, Easter Monday); 16:00 CEST is 14:00 UTC.
    ['2024-03-28', '2024-03-28T18:00:00Z', { date: '2024-04-02', expectedAt: '2024-04-02T14:00:00.000Z', overdue: false }],
    // Thursday 17:00 CET without Thursday's publication: the next is still Tuesday's, and the rates held are behind.
    ['2024-03-27', '2024-03-28T16:00:00Z', { date: '2024-04-02', expectedAt: '2024-04-02T14:00:00.000Z', overdue: true }],
    // Months behind (a history that stops in April, a clock in November): a moment to come, overdue.
    ['2026-04-13', '2026-11-26T10:00:00Z', { date: '2026-11-26', expectedAt: '2026-11-26T15:00:00.000Z', overdue: true }],
    ['2026-04-13', '2026-11-26T16:00:00Z', { date: '2026-11-27', expectedAt: '2026-11-27T15:00:00.000Z', overdue: true }],
  ])('newest %s at %s: the next publication is %j', (newest, now, expected) => {
    expect(nextPublication(newest, new Date(now))).toEqual(expected);
  });
});

describe('RATE_NOT_FOUND says when the currency was last quoted, and the fixed rate to use', () => {
  const span = (first: string, last: string) => ({ first, last });

  it.each([
    ['HRK', { date: '2023-01-02' }, span('2005-04-01', '2022-12-30'), 'HRK was last quoted on 2022-12-30; since 2023-01-01 1 EUR = 7.53450 HRK (irrevocable).'],
    ['BGN', { date: '2026-01-02' }, span('2000-07-19', '2025-12-31'), 'BGN was last quoted on 2025-12-31; since 2026-01-01 1 EUR = 1.95583 BGN (irrevocable).'],
    ['ROL', { date: '2005-07-01' }, span('1999-01-04', '2005-06-30'), 'ROL was last quoted on 2005-06-30; since 2005-07-01 1 RON = 10000 ROL (redenomination).'],
    ['TRL', { start: '2005-01-03', end: '2005-12-30' }, span('1999-01-04', '2004-12-31'), 'TRL was last quoted on 2004-12-31; since 2005-01-01 1 TRY = 1000000 TRL (redenomination).'],
    ['RUB', { date: '2022-03-02' }, span('2005-04-01', '2022-03-01'), 'RUB was last quoted on 2022-03-01; the ECB has not quoted it since.'],
    ['CNY', { date: '2004-06-01' }, span('2005-04-01', '2026-04-13'), 'CNY was first quoted on 2005-04-01; the ECB has no CNY rate on 2004-06-01.'],
    ['ISK', { start: '2010-01-01', end: '2010-12-31' }, span('1999-01-04', '2026-04-13'), 'The ECB did not quote ISK from 2010-01-01 to 2010-12-31 (it quoted ISK from 1999-01-04 to 2026-04-13, with gaps).'],
    ['XAU', { date: '2024-01-02' }, undefined, 'The ECB has no XAU rate on 2024-01-02: no stored publication quotes XAU.'],
  ] as const)('%s %j', (code, asked, quoted, message) => {
    expect(notQuotedMessage(code, asked, quoted)).toBe(message);
  });

  it('is a RATE_NOT_FOUND blaming the parameter', () => {
    expect(notQuoted('HRK', { date: '2023-01-02' }, span('2005-04-01', '2022-12-30'), 'symbols')).toMatchObject({ code: 'RATE_NOT_FOUND', status: 404, param: 'symbols' });
  });
});
