import type { PeriodFigures } from './period-change';
import type { SeriesGroup } from './periods';
import type { SeriesEntry } from './series';

/**
 * A series as CSV, line by line (a page is written in chunks of rows):
 *
 * CSV (RFC 4180: comma-separated, CRLF line ends, a header row, fields quoted only when they hold a
 * comma, quote or line break), one row per entry, one column per currency, so a spreadsheet opens
 * it as a table:
 *   per publication: `date,base,USD,JPY`                 e.g. `2024-03-28,EUR,1.2340,150.10`
 *   grouped:         `period,start,end,publications,base,USD,JPY,partial,USD_first,USD_last,USD_min,
 *                     USD_max,USD_change,USD_changePercent,JPY_first,…`
 * An empty cell is a currency with no rate in that entry; `partial` lists the codes averaged over
 * fewer publications, as `CODE=count` joined by spaces (empty when none). The columns after it are
 * each currency's figures of the period (the entry's `figures`), six a currency, in column order.
 *
 * (NDJSON lines are the JSON answer's entries, written by the HTTP export with the JSON serialiser.)
 */
export interface ExportHeader {
  base: string;
  group: SeriesGroup;
  symbols: readonly string[];
}

const NEEDS_QUOTES = /[",\r\n]/;

/** One RFC 4180 field: quoted, with its quotes doubled, only when it must be. */
export function csvField(value: string): string {
  return NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

const csvLine = (fields: readonly string[]): string => `${fields.map(csvField).join(',')}\r\n`;

/** The figures of a period, in the order of their columns. */
const FIGURES = ['first', 'last', 'min', 'max', 'change', 'changePercent'] as const satisfies readonly (keyof PeriodFigures)[];

export function csvHeader({ group, symbols: codes }: ExportHeader): string {
  return group === 'day'
    ? csvLine(['date', 'base', ...codes])
    : csvLine([
        'period',
        'start',
        'end',
        'publications',
        'base',
        ...codes,
        'partial',
        ...codes.flatMap((code) => FIGURES.map((figure) => `${code}_${figure}`)),
      ]);
}

export function csvRow(entry: SeriesEntry, { base, group, symbols: codes }: ExportHeader): string {
  const rates = codes.map((code) => entry.rates[code] ?? '');
  if (group === 'day') return csvLine([entry.start, base, ...rates]);
  const partial = Object.entries(entry.partial ?? {})
    .map(([code, count]) => `${code}=${count}`)
    .join(' ');
  const figures = codes.flatMap((code) => {
    const of = entry.figures?.[code];
    return FIGURES.map((figure) => of?.[figure] ?? '');
  });
  return csvLine([entry.period, entry.start, entry.end, String(entry.publications), base, ...rates, partial, ...figures]);
}

/** The header, then one line per entry. */
export function* csvLines(entries: Iterable<SeriesEntry>, header: ExportHeader): Generator<string> {
  yield csvHeader(header);
  for (const entry of entries) yield csvRow(entry, header);
}

/** Rates (publications × currencies) that one request of a key's rate limit pays for when a series page is computed. */
export const RATES_PER_REQUEST = 10_000;

/**
 * What computing a series page costs, in requests of the key's rate limit: one per
 * RATES_PER_REQUEST rates or part of them, at least one. `currencies` is the columns asked for, or,
 * for every currency, the most the page can list: it is charged before any publication is read.
 */
export function exportCost(publications: number, currencies: number): number {
  return Math.max(1, Math.ceil((publications * Math.max(1, currencies)) / RATES_PER_REQUEST));
}
