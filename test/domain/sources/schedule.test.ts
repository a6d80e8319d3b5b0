import { describe, expect, it } from 'vitest';
import { sourceInfo } from '../../../src/domain/sources/catalog';
import { isOverdue, nextPublicationDue, zonedDate, zonedInstant } from '../../../src/domain/sources/schedule';

const boc = sourceInfo('boc').tables[0]!.schedule;
const nbpB = sourceInfo('nbp').tables.find((t) => t.id === 'B')!.schedule;

describe('the schedule of a source', () => {
  it.each([
    ['2026-01-15', '16:30', 'America/Toronto', '2026-01-15T21:30:00.000Z'],
    ['2026-07-15', '16:30', 'America/Toronto', '2026-07-15T20:30:00.000Z'],
    ['2026-03-29', '12:15', 'Europe/Warsaw', '2026-03-29T10:15:00.000Z'],
    ['2026-10-25', '15:30', 'Europe/Moscow', '2026-10-25T12:30:00.000Z'],
  ])('%s %s in %s is %s', (date, time, zone, instant) => {
    expect(zonedInstant(date, time, zone).toISOString()).toBe(instant);
  });

  it('the calendar day is the publisher’s: 23:00 UTC is already the next day in Kyiv', () => {
    expect(zonedDate(new Date('2026-04-14T23:00:00Z'), 'Europe/Kyiv')).toBe('2026-04-15');
  });

  it.each([
    ['a Monday after a Friday', boc, '2026-04-10', '2026-04-13T20:30:00.000Z'],
    ['the next day in the week', boc, '2026-04-13', '2026-04-14T20:30:00.000Z'],
    ['the next Wednesday for a weekly table', nbpB, '2026-04-08', '2026-04-15T10:15:00.000Z'],
  ])('the publication after one is due on %s', (_, schedule, newest, due) => {
    expect(nextPublicationDue(schedule, newest).toISOString()).toBe(due);
  });

  it('is overdue two hours after the next publication was due, and always when none is held', () => {
    expect(isOverdue(boc, '2026-04-13', new Date('2026-04-14T22:30:00Z'))).toBe(false);
    expect(isOverdue(boc, '2026-04-13', new Date('2026-04-14T22:31:00Z'))).toBe(true);
    expect(isOverdue(boc, undefined, new Date('2026-04-14T00:00:00Z'))).toBe(true);
  });
});
