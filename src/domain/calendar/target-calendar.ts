import { addDays, weekday } from './berlin-time';

/** Fixed TARGET closing days (MM-DD): New Year, Labour Day, Christmas Day, 26 December. */
const FIXED_HOLIDAYS = new Set(['01-01', '05-01', '12-25', '12-26']);

/** Easter Sunday of `year` (Gregorian), by the anonymous Gregorian (Meeus/Jones/Butcher) algorithm. */
export function easterSunday(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/**
 * A TARGET business day, on which the ECB publishes reference rates: Monday to Friday except
 * 1 January, Good Friday, Easter Monday, 1 May, 25 and 26 December (the calendar since 2002).
 * Only the refresh schedule uses it: date resolution goes by the stored publications instead.
 */
export function isTargetBusinessDay(date: string): boolean {
  const day = weekday(date);
  if (day === 0 || day === 6 || FIXED_HOLIDAYS.has(date.slice(5))) return false;
  const easter = easterSunday(Number(date.slice(0, 4)));
  return date !== addDays(easter, -2) && date !== addDays(easter, 1);
}

/** The first TARGET business day after `date`. */
export function nextBusinessDay(date: string): string {
  let day = addDays(date, 1);
  while (!isTargetBusinessDay(day)) day = addDays(day, 1);
  return day;
}

/** The last TARGET business day before `date`. */
export function previousBusinessDay(date: string): string {
  let day = addDays(date, -1);
  while (!isTargetBusinessDay(day)) day = addDays(day, -1);
  return day;
}
