import { describe, expect, it } from 'vitest';
import { sourceInfo } from '../../../src/domain/sources/catalog';
import { expectedNext, isBehind, localMinute } from '../../../src/domain/sources/freshness';

const daily = sourceInfo('boc').tables[0]!.schedule;
const weekly = sourceInfo('nbp').tables.find((t) => t.id === 'B')!.schedule;

describe('the next publication of a schedule', () => {
  it.each([
    [daily, '2026-03-05', '2026-03-06'],
    [daily, '2026-03-06', '2026-03-09'],
    [weekly, '2026-03-04', '2026-03-11'],
    [weekly, '2026-03-06', '2026-03-11'],
  ] as const)('%#: after %s, %s', (schedule, newest, next) => {
    expect(expectedNext(schedule, newest)).toBe(next);
  });
});

describe('a table is behind once its next publication is more than two hours overdue, in its own zone', () => {
  it.each([
    // The Bank of Canada publishes by 16:30 in Toronto (UTC-5 in early March, UTC-4 from 8 March 2026).
    ['2026-03-05', '2026-03-06T23:29:00Z', false],
    ['2026-03-05', '2026-03-06T23:31:00Z', true],
    ['2026-03-06', '2026-03-08T12:00:00Z', false],
    ['2026-03-06', '2026-03-09T22:31:00Z', true],
    ['2026-03-06', '2026-03-09T22:29:00Z', false],
  ] as const)('newest %s at %s: %s', (newest, now, behind) => {
    expect(isBehind(daily, newest, new Date(now))).toBe(behind);
  });

  it('a table never loaded is behind', () => {
    expect(isBehind(weekly, undefined, new Date('2026-03-04T00:00:00Z'))).toBe(true);
  });

  it('reads local time across a zone change', () => {
    expect(localMinute(new Date('2026-03-29T01:30:00Z'), 'Europe/Warsaw')).toBe('2026-03-29T03:30');
    expect(localMinute(new Date('2026-03-28T01:30:00Z'), 'Europe/Warsaw')).toBe('2026-03-28T02:30');
  });
});
