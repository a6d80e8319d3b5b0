import { IMF_CURRENCY_NAMES } from './imf-names';
import { calendarDate, FeedCollector, figureValue, RowRejected, show } from './feed-collector';
import { utf8Text } from './feed-json';
import { FeedFormatError, type ParsedFeed, type SourceFigure, type SourcePublication } from './types';

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAY = /^([A-Z][a-z]+) (\d{2}), (\d{4})$/;
/** The IMF groups thousands with a comma ("1,234.500000") and always prints a decimal point. */
const GROUPED = /^\d{1,3}(,\d{3})+\.\d+$/;
/** A representative-rate row marked (1) is in US dollars per currency unit; the others in units per dollar. */
const DOLLARS_PER_UNIT = '(1)';

/** What a section title says of the rows under it (the same title with " Continued" carries on). */
interface Section {
  /** Which collector gathers it: the two SDR sections are kept apart until they are merged. */
  readonly part: 'representative' | 'sdrPerUnit' | 'unitsPerSdr';
  readonly table: 'representative' | 'sdr';
  readonly base: 'USD' | 'XDR';
  readonly direction: (name: string) => SourceFigure['direction'];
}

const SECTIONS: readonly [string, Section][] = [
  [
    'Representative Exchange Rates for Selected Currencies',
    {
      part: 'representative',
      table: 'representative',
      base: 'USD',
      direction: (name) => (name.endsWith(DOLLARS_PER_UNIT) ? 'base-per-units' : 'units-per-base'),
    },
  ],
  ['SDRs per Currency unit', { part: 'sdrPerUnit', table: 'sdr', base: 'XDR', direction: () => 'base-per-units' }],
  ['Currency units per SDR', { part: 'unitsPerSdr', table: 'sdr', base: 'XDR', direction: () => 'units-per-base' }],
];

function sectionOf(title: string): Section | undefined {
  return SECTIONS.find(([start]) => title.startsWith(`${start} for `))?.[1];
}

/** "March 02, 2026" as 2026-03-02. */
function headerDay(text: string, line: number): string {
  const match = DAY.exec(text.trim());
  const month = match ? MONTHS.indexOf(match[1]!) + 1 : 0;
  try {
    if (!match || month === 0) throw new RowRejected(`the column ${show(text)} is not a day written "March 02, 2026"`);
    return calendarDate(`${match[3]}-${String(month).padStart(2, '0')}-${match[2]}`, text);
  } catch (error) {
    if (error instanceof RowRejected) throw new FeedFormatError('imf', line, error.message);
    throw error;
  }
}

/** One cell: "NA" is no figure that day; grouping commas are dropped, a decimal point is required. */
function cellValue(cell: string): string | undefined {
  const text = cell.trim();
  if (text === 'NA') return undefined;
  if (text.includes(',') && !GROUPED.test(text)) throw new RowRejected(`the figure ${show(text)} has a comma that groups no thousands`);
  return figureValue(text.replaceAll(',', ''));
}

/**
 * Reads the IMF's rms_mth TSV (`tsvflag=Y`): the representative rates (`reportType=REP`, base USD)
 * or the SDR values (`reportType=SDRCV`, base XDR), each a title line, a `Currency` header of
 * days and one row per currency name, in halves ("… Continued"), until "Notes:".
 */
export function parseImf(body: Uint8Array): ParsedFeed {
  const lines = utf8Text('imf', body).split(/\r?\n/);
  const first = lines.findIndex((text) => text.trim() !== '');
  if (!sectionOf(lines[first]!.trim())) {
    throw new FeedFormatError('imf', first + 1, `not an IMF rms_mth report: ${show(lines[first]!.trim())}`);
  }
  const parts = {
    representative: new FeedCollector('imf', 'USD'),
    sdrPerUnit: new FeedCollector('imf', 'XDR'),
    unitsPerSdr: new FeedCollector('imf', 'XDR'),
  };
  let section: Section | undefined;
  let days: string[] | undefined;
  for (let i = first; i < lines.length; i++) {
    const text = lines[i]!;
    const line = i + 1;
    if (text.trim() === 'Notes:') break;
    if (text.trim() === '') {
      days = undefined;
      continue;
    }
    const titled = sectionOf(text.trim());
    if (titled) {
      [section, days] = [titled, undefined];
      continue;
    }
    const cells = text.split('\t');
    if (cells[0] === 'Currency') {
      days = cells.slice(1).map((cell) => headerDay(cell, line));
      continue;
    }
    if (!days || !section) throw new FeedFormatError('imf', line, 'a row before any "Currency" header of days');
    const into = parts[section.part];
    const [current, columns] = [section, days];
    into.row(line, () => readRow(into, current, columns, cells, line));
  }
  return merge(parts.representative.result(), parts.sdrPerUnit.result(), parts.unitsPerSdr.result());
}

function readRow(feed: FeedCollector, section: Section, days: string[], cells: string[], line: number): void {
  if (cells.length !== days.length + 1) throw new RowRejected(`${cells.length - 1} figures where the header has ${days.length} days`);
  const printed = cells[0]!.trim();
  const name =
    section.table === 'representative' && printed.endsWith(DOLLARS_PER_UNIT) ? printed.slice(0, -DOLLARS_PER_UNIT.length) : printed;
  const code = IMF_CURRENCY_NAMES[name.trim()];
  if (!code) throw new RowRejected(`the currency name ${show(printed)} is not one this loader knows`);
  const direction = section.direction(printed);
  days.forEach((date, j) => {
    feed.row(line, () => {
      const value = cellValue(cells[j + 1]!);
      if (value !== undefined) feed.add({ line, table: section.table, date, code, figure: { value, units: '1', direction } });
    });
  });
}

/**
 * One publication per table and day. Where a report holds both SDR sections, a currency's "SDRs per
 * Currency unit" figure is kept and its "Currency units per SDR" one (the IMF's rounded reciprocal
 * of it) only fills in a currency the other section lacks that day.
 */
function merge(representative: ParsedFeed, sdrPerUnit: ParsedFeed, unitsPerSdr: ParsedFeed): ParsedFeed {
  const sdr = new Map(unitsPerSdr.publications.map((p) => [p.date, p]));
  for (const p of sdrPerUnit.publications) {
    const other = sdr.get(p.date);
    sdr.set(p.date, other ? { ...p, figures: sortedByCode({ ...other.figures, ...p.figures }) } : p);
  }
  const publications = [...representative.publications, ...sdr.values()].sort((x, y) =>
    x.date === y.date ? (x.table < y.table ? -1 : 1) : x.date < y.date ? -1 : 1,
  );
  const skipped = [...representative.skipped, ...sdrPerUnit.skipped, ...unitsPerSdr.skipped].sort((x, y) => x.line - y.line);
  return { publications, skipped };
}

function sortedByCode(figures: SourcePublication['figures']): SourcePublication['figures'] {
  return Object.fromEntries(
    Object.keys(figures)
      .sort()
      .map((code) => [code, figures[code]!]),
  );
}
