/**
 * Europe/Berlin wall-clock time (the ECB's), from Intl alone: no time-zone library. The offset is
 * read per instant, so CET (+01:00) and CEST (+02:00) and the switch days come out right.
 */
const PARTS = new Intl.DateTimeFormat('en-US', {
  timeZone: 'Europe/Berlin',
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

const DAY_MS = 86_400_000;

function wallClock(instant: Date): { date: string; asUtcMs: number } {
  const p: Record<string, string> = {};
  for (const part of PARTS.formatToParts(instant)) p[part.type] = part.value;
  const [year, month, day] = [Number(p.year), Number(p.month), Number(p.day)];
  return {
    date: `${p.year}-${p.month}-${p.day}`,
    asUtcMs: Date.UTC(year, month - 1, day, Number(p.hour), Number(p.minute), Number(p.second)),
  };
}

/** Minutes Berlin is ahead of UTC at `instant`: 60 in winter (CET), 120 in summer (CEST). */
export function berlinOffsetMinutes(instant: Date): number {
  const wholeSeconds = Math.floor(instant.getTime() / 1000) * 1000;
  return Math.round((wallClock(instant).asUtcMs - wholeSeconds) / 60_000);
}

/** The calendar day in Berlin at `instant`, YYYY-MM-DD. */
export function berlinDate(instant: Date): string {
  return wallClock(instant).date;
}

/** The instant when Berlin's wall clock shows `hour:minute` on `date` (never inside the 02:00–03:00 DST gap here). */
export function berlinInstant(date: string, hour: number, minute = 0): Date {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const local = Date.UTC(year, month - 1, day, hour, minute);
  // The first guess uses the offset at the local time read as UTC; the second corrects it on switch days.
  const guess = local - berlinOffsetMinutes(new Date(local)) * 60_000;
  return new Date(local - berlinOffsetMinutes(new Date(guess)) * 60_000);
}

/** `date` (YYYY-MM-DD) plus `days` calendar days. */
export function addDays(date: string, days: number): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, day) + days * DAY_MS).toISOString().slice(0, 10);
}

/** 0 = Sunday … 6 = Saturday, for a calendar date (no time zone involved). */
export function weekday(date: string): number {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, day)).getUTCDay();
}
