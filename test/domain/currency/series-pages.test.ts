import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, isPageComplete, pageOf, type SeriesRange } from '../../../src/domain/currency/series-pages';
import { periodOf } from '../../../src/domain/currency/periods';
import { addDays } from '../../../src/domain/calendar/berlin-time';
import { expectApiError } from '../helpers';

/** Every page of a range, by following the cursors. */
function pages(range: SeriesRange): { from: string; to: string }[] {
  const out: { from: string; to: string }[] = [];
  let page = pageOf(range);
  for (;;) {
    out.push({ from: page.from, to: page.to });
    if (page.nextCursor === undefined) return out;
    page = pageOf(range, decodeCursor(page.nextCursor, range));
  }
}

describe('a series call covers at most ten years; a cursor goes on', () => {
  it('answers a range of ten years or less in one page, without a cursor', () => {
    expect(pageOf({ start: '2014-01-01', end: '2023-12-31', group: 'day' })).toEqual({ from: '2014-01-01', to: '2023-12-31' });
  });

  it.each([
    [
      'day',
      [
        ['1999-01-04', '2009-01-03'],
        ['2009-01-04', '2019-01-03'],
        ['2019-01-04', '2026-04-13'],
      ],
    ],
    [
      'month',
      [
        ['1999-01-04', '2008-12-31'],
        ['2009-01-01', '2018-12-31'],
        ['2019-01-01', '2026-04-13'],
      ],
    ],
    ['year', [['1999-01-04', '2026-04-13']]],
    ['quarter', [['1999-01-04', '2026-04-13']]],
    [
      'week',
      [
        ['1999-01-04', '2008-12-28'],
        ['2008-12-29', '2018-12-23'],
        ['2018-12-24', '2026-04-13'],
      ],
    ],
  ] as const)('pages 1999-01-04 … 2026-04-13 by %s at whole periods', (group, expected) => {
    const range: SeriesRange = { start: '1999-01-04', end: '2026-04-13', group };
    const all = pages(range);
    expect(all.map((p) => [p.from, p.to])).toEqual(expected);
    for (let i = 1; i < all.length; i++) {
      expect(all[i]!.from).toBe(addDays(all[i - 1]!.to, 1));
      expect(periodOf(all[i]!.from, group).start).toBe(all[i]!.from); // no period split between pages
    }
  });

  it.each(['day', 'week', 'month'] as const)(
    'answers a page starting within ten years of 9999-12-31 by %s to its end, without a cursor',
    (group) => {
      const range: SeriesRange = { start: '9990-01-01', end: '9999-12-31', group };
      expect(pageOf(range, '9995-01-01')).toEqual({ from: '9995-01-01', to: '9999-12-31' });
      expect(pageOf({ ...range, start: '9999-12-31' })).toEqual({ from: '9999-12-31', to: '9999-12-31' });
    },
  );

  it.each(['text/csv', 'application/x-ndjson'])('answers the whole history by day in %s in one page', (format) => {
    expect(pages({ start: '1999-01-04', end: '2026-04-13', group: 'day', format }).map((p) => [p.from, p.to])).toEqual([
      ['1999-01-04', '2026-04-13'],
    ]);
  });

  const range: SeriesRange = { start: '1999-01-04', end: '2026-04-13', group: 'month' };

  it.each([
    ['another range', encodeCursor({ ...range, end: '2026-04-14' }, '2009-01-01')],
    ['another group', encodeCursor({ ...range, group: 'year' }, '2009-01-01')],
    ['another source', encodeCursor({ ...range, source: 'nbp' }, '2009-01-01')],
    ['a day inside a period', encodeCursor(range, '2009-01-02')],
    ['the start itself', encodeCursor(range, '1999-01-04')],
    ['a day after the end', encodeCursor(range, '2026-05-01')],
    ['not a date', encodeCursor(range, '2009-02-30')],
    ['garbage', 'not a cursor!'],
    ['a number', 12],
    ['base64 of nonsense', Buffer.from('1|x|y').toString('base64url')],
  ])('refuses a cursor of %s with INVALID_REQUEST', (_what, cursor) => {
    expectApiError(() => decodeCursor(cursor, range), 'INVALID_REQUEST', 'cursor');
  });

  it("binds a source's cursor to that source: an ECB query refuses it, the source's own takes it", () => {
    const nbp = { ...range, source: 'nbp' };
    expect(decodeCursor(encodeCursor(nbp, '2009-01-01'), nbp)).toBe('2009-01-01');
    expectApiError(() => decodeCursor(encodeCursor(range, '2009-01-01'), nbp), 'INVALID_REQUEST', 'cursor');
  });
});

describe('a page is complete once no publication can join it', () => {
  it.each([
    // Wednesday's rates held, Thursday before 16:00 CET: Thursday's may still join.
    [{ from: '2024-03-01', to: '2024-03-27' }, false, '2024-03-27', '2024-03-28T10:00:00Z', true],
    [{ from: '2024-03-01', to: '2024-03-28' }, false, '2024-03-27', '2024-03-28T10:00:00Z', false],
    // Rates months behind: everything after the newest held is still to arrive.
    [{ from: '2026-04-01', to: '2026-04-13' }, false, '2026-04-13', '2026-11-26T10:00:00Z', true],
    [{ from: '2026-04-01', to: '2026-05-31' }, false, '2026-04-13', '2026-11-26T10:00:00Z', false],
    // A next page that is not out yet would change the answer (its cursor).
    [{ from: '2010-01-01', to: '2019-12-31', nextCursor: 'c' }, false, '2024-03-27', '2024-03-28T10:00:00Z', false],
    [{ from: '2010-01-01', to: '2019-12-31', nextCursor: 'c' }, true, '2024-03-27', '2024-03-28T10:00:00Z', true],
  ])('%j, more %s, newest %s at %s: %s', (page, more, newest, now, complete) => {
    expect(isPageComplete(page, more, newest, new Date(now))).toBe(complete);
  });
});

describe('a cursor is bound to its whole query', () => {
  // JSON: its answers are pages (CSV and NDJSON answer any range in one).
  const query: SeriesRange = { start: '1999-01-04', end: '2026-04-13', group: 'month', base: 'USD', symbols: ['JPY', 'EUR'] };
  const cursor = pageOf(query).nextCursor!;

  it('continues the query that gave it', () => {
    expect(decodeCursor(cursor, query)).toBe('2009-01-01');
  });

  it.each([
    ['start', { start: '1999-01-05' }],
    ['end', { end: '2026-04-14' }],
    ['group', { group: 'year' }],
    ['base', { base: 'GBP' }],
    ['base (EUR when absent)', { base: undefined }],
    ['symbols', { symbols: ['JPY'] }],
    ['symbols in another order', { symbols: ['EUR', 'JPY'] }],
    ['symbols (every currency when absent)', { symbols: undefined }],
    ['format', { format: 'application/x-ndjson' }],
    ['format (CSV)', { format: 'text/csv' }],
  ] as const)('refuses it with another %s: INVALID_REQUEST on cursor, saying it continues another query', (_member, change) => {
    const error = expectApiError(() => decodeCursor(cursor, { ...query, ...change }), 'INVALID_REQUEST', 'cursor');
    expect(error.message).toMatch(/continues another query/);
  });

  it.each([
    ['the first form, which named the range alone', Buffer.from('1|2009-01-01|1999-01-04|2026-04-13|month').toString('base64url')],
    ['a digest left out', Buffer.from('2|2009-01-01').toString('base64url')],
    ['a member added', Buffer.from(`${Buffer.from(cursor, 'base64url').toString('utf8')}|x`).toString('base64url')],
  ])('refuses %s', (_what, forged) => {
    expectApiError(() => decodeCursor(forged, query), 'INVALID_REQUEST', 'cursor');
  });
});
