import { addDays } from '../calendar/berlin-time';
import type { SourceSchedule } from './catalog';

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let found = formatters.get(timeZone);
  if (!found) {
    found = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, found);
  }
  return found;
}

/** Milliseconds `timeZone`'s wall clock is ahead of UTC at `ms`. */
function offsetMs(timeZone: string, ms: number): number {
  const p: Record<string, string> = {};
  for (const part of formatter(timeZone).formatToParts(new Date(ms))) p[part.type] = part.value;
  const wall = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
  return wall - Math.floor(ms / 1000) * 1000;
}

/** The instant `timeZone`'s wall clock shows `hhmm` (HH:MM) on `date` (YYYY-MM-DD). */
export function zonedInstant(date: string, hhmm: string, timeZone: string): Date {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const [hour, minute] = hhmm.split(':').map(Number) as [number, number];
  const wall = Date.UTC(y, m - 1, d, hour, minute);
  // Twice: the offset at the first guess may be the other side of a DST switch.
  const first = wall - offsetMs(timeZone, wall);
  return new Date(wall - offsetMs(timeZone, first));
}

/** The calendar day in `timeZone` at `instant`, YYYY-MM-DD. */
export function zonedDate(instant: Date, timeZone: string): string {
  const p: Record<string, string> = {};
  for (const part of formatter(timeZone).formatToParts(instant)) p[part.type] = part.value;
  return `${p.year}-${p.month}-${p.day}`;
}

/** Whether the schedule publishes on `date` (weekdays only: the publishers' holidays are not known here). */
export function publishesOn(schedule: SourceSchedule, date: string): boolean {
  const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
  if (schedule.days === 'every-day') return true;
  if (schedule.days === 'wednesdays') return weekday === 3;
  return weekday >= 1 && weekday <= 5;
}

/**
 * When the publication after the one dated `newest` is due: its publishing day's `dueBy` in the
 * publisher's zone. A publisher that dates a publication for the day after (Bank of Russia) is
 * read leniently: its next publication is then looked for from that later day, never earlier.
 */
export function nextPublicationDue(schedule: SourceSchedule, newest: string): Date {
  let day = addDays(newest, 1);
  while (!publishesOn(schedule, day)) day = addDays(day, 1);
  return zonedInstant(day, schedule.dueBy, schedule.timeZone);
}

/** How long past its due time a publication may be missing before the source is stale (publishers run late). */
export const STALE_GRACE_MS = 2 * 3_600_000;

/** True when the publication after `newest` is overdue by more than the grace, or none is held at all. */
export function isOverdue(schedule: SourceSchedule, newest: string | undefined, now: Date, graceMs = STALE_GRACE_MS): boolean {
  if (newest === undefined) return true;
  return now.getTime() > nextPublicationDue(schedule, newest).getTime() + graceMs;
}
