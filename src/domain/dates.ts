const DATE_SHAPE = /^(\d{4})-(\d{2})-(\d{2})$/;

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function daysIn(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
}

/** True for a real calendar date written YYYY-MM-DD (2026-02-31 is not one; Date.parse would roll it over). */
export function isCalendarDate(text: string): boolean {
  const match = DATE_SHAPE.exec(text);
  if (!match) return false;
  const month = Number(match[2]);
  const day = Number(match[3]);
  return month >= 1 && month <= 12 && day >= 1 && day <= daysIn(Number(match[1]), month);
}

/**
 * Why a text written YYYY-MM-DD names no day of the calendar ("February 2024 has 29 days"), so a
 * message can say the day does not exist rather than repeat the format; undefined when it names one
 * or is not written YYYY-MM-DD at all.
 */
export function missingDayReason(text: string): string | undefined {
  const match = DATE_SHAPE.exec(text);
  if (!match || isCalendarDate(text)) return undefined;
  const year = Number(match[1]);
  const month = Number(match[2]);
  if (month < 1 || month > 12) return `there is no month ${match[2]}`;
  return `${MONTHS[month - 1]} ${match[1]} has ${daysIn(year, month)} days`;
}

/** The sentence for a date input that is not a calendar date: the day that does not exist, or the format. */
export function calendarDateProblem(text: unknown, subject: string): string {
  const reason = typeof text === 'string' ? missingDayReason(text) : undefined;
  return reason === undefined
    ? `${subject} must be a calendar date written YYYY-MM-DD.`
    : `${subject} ${text as string} does not exist: ${reason}.`;
}
