import { addDays, weekday } from '../calendar/berlin-time';
import type { SourceSchedule } from './catalog';

/** Hours past a publication's due time before a source missing it is called stale. */
export const STALE_GRACE_HOURS = 2;

/** The day after `newest` on which the schedule publishes next (weekdays, Wednesdays, or every day). */
export function expectedNext(schedule: SourceSchedule, newest: string): string {
  let day = addDays(newest, 1);
  const publishes = (d: string) => {
    const w = weekday(d);
    return schedule.days === 'every-day' || (schedule.days === 'wednesdays' ? w === 3 : w !== 0 && w !== 6);
  };
  while (!publishes(day)) day = addDays(day, 1);
  return day;
}

/** The local date and time of an instant in a time zone, as "YYYY-MM-DDTHH:MM" (string order is time order). */
export function localMinute(instant: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(instant);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)!.value;
  return `${part('year')}-${part('month')}-${part('day')}T${part('hour')}:${part('minute')}`;
}

/**
 * Whether a table is behind its schedule: its next publication's due time (in the publisher's
 * zone) passed more than STALE_GRACE_HOURS ago. A table never loaded is stale. Publishers' own
 * holidays are not modelled: a holiday reads as one late day, and the next publication clears it.
 */
export function isBehind(schedule: SourceSchedule, newest: string | undefined, now: Date): boolean {
  if (newest === undefined) return true;
  const due = `${expectedNext(schedule, newest)}T${schedule.dueBy}`;
  return localMinute(new Date(now.getTime() - STALE_GRACE_HOURS * 3_600_000), schedule.timeZone) > due;
}
