import type { Publication } from './types';
import { isCalendarDate } from '../dates';
import { currencyProblem, EcbFormatError, PublicationCollector, rateEntryProblem, show } from './validate';

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const ISO = /^\d{4}-\d{2}-\d{2}$/;
const LONG = /^(\d{1,2}) ([A-Z][a-z]{2,8}) (\d{4})$/;

/** "2026-04-13" as is, "13 April 2026" (the one-day CSV) as 2026-04-13; anything else unchanged, to be refused. */
function isoDate(cell: string): string {
  if (ISO.test(cell)) return cell;
  const m = LONG.exec(cell);
  const month = m ? MONTHS.indexOf(m[2]!) + 1 : 0;
  if (!m || month === 0) return cell;
  return `${m[3]}-${String(month).padStart(2, '0')}-${m[1]!.padStart(2, '0')}`;
}

function fail(message: string, line: number): never {
  throw new EcbFormatError(`${message} at line ${line}`);
}

/**
 * Parses the wide history CSV (`Date,USD,JPY,…,`, newest first, `N/A` gaps) and the one-day CSV
 * (`Date, USD, …, ` and "13 April 2026"). `N/A` and empty cells mean "not quoted that day".
 * Cells are trimmed, so both separators work. Returns the publications oldest first.
 */
export function parseEcbCsv(text: string): Publication[] {
  const lines = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).split('\n');
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  if (lines.length === 0) throw new EcbFormatError('not an ECB document: empty CSV');

  const header = lines[0]!.split(',').map((cell) => cell.trim());
  if (header[0] !== 'Date') fail(`not an ECB CSV: the header must start with "Date", found ${show(lines[0]!)}`, 1);
  // Every ECB line ends with a separator, so the last field is empty; the rows must match the header.
  const trailingSeparator = header.at(-1) === '';
  const codes = trailingSeparator ? header.slice(1, -1) : header.slice(1);
  if (codes.length === 0) fail('not an ECB CSV: the header names no currency', 1);
  codes.forEach((code, j) => {
    const problem = currencyProblem(code);
    if (problem) fail(problem, 1);
    if (codes.indexOf(code) !== j) fail(`duplicate currency column ${code}`, 1);
  });

  const days = new PublicationCollector<number>((line) => `line ${line}`);
  for (let i = 1; i < lines.length; i++) {
    const lineNo = i + 1;
    if (lines[i]!.trim() === '') fail('a blank line between rows', lineNo);
    const cells = lines[i]!.split(',').map((cell) => cell.trim());
    if (cells.length !== header.length) {
      fail(`${cells.length} fields where the header has ${header.length} (truncated or malformed row)`, lineNo);
    }
    if (trailingSeparator && cells.at(-1) !== '') fail('a value after the last currency column', lineNo);
    const date = isoDate(cells[0]!);
    if (!isCalendarDate(date)) fail(`invalid date ${show(cells[0]!)} (expected YYYY-MM-DD or "13 April 2026")`, lineNo);
    const rates: Record<string, string> = {};
    codes.forEach((code, j) => {
      const cell = cells[j + 1]!;
      if (cell === '' || cell === 'N/A') return;
      const bad = rateEntryProblem(date, rates, code, cell);
      if (bad) fail(bad, lineNo);
      rates[code] = cell;
    });
    days.add(date, rates, lineNo);
  }
  return days.finish();
}
