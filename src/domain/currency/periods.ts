import { addDays, weekday } from '../calendar/berlin-time';

/** How a time series is grouped: one entry per publication (`day`), or per ISO week, month, quarter or year. */
export const SERIES_GROUPS = ['day', 'week', 'month', 'quarter', 'year'] as const;
export type SeriesGroup = (typeof SERIES_GROUPS)[number];

/** A calendar period: its key ("2024-W13", "2024-03", "2024", or the day itself) and its first and last day. */
export interface Period {
  key: string;
  start: string;
  end: string;
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** Days in a month of the proleptic Gregorian calendar (month 1..12). */
function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * The ISO 8601 week of `date`: weeks start on Monday and belong to the year of their Thursday, so
 * 2021-01-03 (a Sunday) is in 2020-W53 and 2024-12-30 (a Monday) in 2025-W01.
 */
export function isoWeek(date: string): Period {
  const isoDay = weekday(date) === 0 ? 7 : weekday(date); // Monday 1 … Sunday 7
  const monday = addDays(date, 1 - isoDay);
  const thursday = addDays(monday, 3);
  const year = Number(thursday.slice(0, 4));
  const dayOfYear = (Date.UTC(year, Number(thursday.slice(5, 7)) - 1, Number(thursday.slice(8, 10))) - Date.UTC(year, 0, 1)) / 86_400_000;
  const week = Math.floor(dayOfYear / 7) + 1;
  return { key: `${year}-W${pad2(week)}`, start: monday, end: addDays(monday, 6) };
}

/** The period of `group` that holds `date`. */
export function periodOf(date: string, group: SeriesGroup): Period {
  const year = Number(date.slice(0, 4));
  switch (group) {
    case 'day':
      return { key: date, start: date, end: date };
    case 'week':
      return isoWeek(date);
    case 'month': {
      const month = Number(date.slice(5, 7));
      const ym = date.slice(0, 7);
      return { key: ym, start: `${ym}-01`, end: `${ym}-${pad2(daysInMonth(year, month))}` };
    }
    case 'quarter': {
      const quarter = Math.ceil(Number(date.slice(5, 7)) / 3);
      const last = quarter * 3;
      return {
        key: `${date.slice(0, 4)}-Q${quarter}`,
        start: `${date.slice(0, 4)}-${pad2(last - 2)}-01`,
        end: `${date.slice(0, 4)}-${pad2(last)}-${pad2(daysInMonth(year, last))}`,
      };
    }
    case 'year':
      return { key: date.slice(0, 4), start: `${date.slice(0, 4)}-01-01`, end: `${date.slice(0, 4)}-12-31` };
  }
}

/** `date` plus `years` calendar years; 29 February becomes 28 February in a common year. */
export function addYears(date: string, years: number): string {
  const year = Number(date.slice(0, 4)) + years;
  const month = Number(date.slice(5, 7));
  const day = Math.min(Number(date.slice(8, 10)), daysInMonth(year, month));
  return `${String(year).padStart(4, '0')}-${pad2(month)}-${pad2(day)}`;
}
