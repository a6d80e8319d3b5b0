import { calendarDate, FeedCollector, figureValue, RowRejected, show } from './feed-collector';
import { utf8Text } from './feed-json';
import { FeedFormatError, type ParsedFeed, type SourceId } from './types';

/** One record of a CSV text: its fields and the line it starts on. */
export interface CsvRecord {
  readonly line: number;
  readonly fields: string[];
}

/** A quoted field ("…", with "" for a quote inside, commas and line breaks allowed) or a plain one. */
const FIELD = /"((?:[^"]|"")*)"|([^",\r\n]*)/y;

/**
 * Splits CSV text (RFC 4180: comma separated, CRLF or LF, quoted fields) into records. A quote
 * left open or text after a closing quote is not CSV: the import fails with its line.
 */
export function readCsv(source: SourceId, text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let pos = 0;
  let line = 1;
  while (pos < text.length) {
    const start = line;
    const fields: string[] = [];
    for (;;) {
      FIELD.lastIndex = pos;
      const match = FIELD.exec(text)!;
      pos = FIELD.lastIndex;
      const quoted = match[1];
      fields.push(quoted === undefined ? match[2]! : quoted.replaceAll('""', '"'));
      if (quoted !== undefined) line += quoted.split('\n').length - 1;
      const next = text[pos];
      if (next === ',') {
        pos += 1;
        continue;
      }
      if (next === undefined || next === '\n' || (next === '\r' && text[pos + 1] === '\n')) break;
      const reason = text[pos] === '"' ? 'a quoted field is not closed' : 'text after a closing quote';
      throw new FeedFormatError(source, line, `not CSV: ${reason}`);
    }
    pos += text[pos] === '\r' ? 2 : 1;
    line += 1;
    if (!(fields.length === 1 && fields[0] === '')) records.push({ line: start, fields });
  }
  return records;
}

/** Where an SDMX-CSV flavour keeps the columns a figure is read from. */
export interface SdmxColumns {
  /** The currency priced (SDMX's base currency: Norges Bank's BASE_CUR). */
  readonly currency: string;
  /** The currency it is priced in, which must be the source's base (QUOTE_CUR NOK, COUNTER_CURRENCY ILS). */
  readonly quote: string;
  /** A power of ten: OBS_VALUE prices 10^UNIT_MULT units of the currency. */
  readonly unitMult: string;
  readonly period: string;
  readonly value: string;
}

export interface SdmxFeed {
  readonly source: SourceId;
  readonly base: string;
  readonly columns: SdmxColumns;
  /** Series of the response that are not currencies (Norges Bank's krone indices), with the reason they are skipped. */
  readonly notCurrencies?: Readonly<Record<string, string>>;
}

/**
 * Reads an SDMX-CSV data answer, one observation per row. An empty OBS_VALUE is a day without a
 * figure (a holiday of that series), not an error.
 */
export function parseSdmxCsv(spec: SdmxFeed, body: Uint8Array): ParsedFeed {
  const [header, ...rows] = readCsv(spec.source, utf8Text(spec.source, body));
  const at = columnIndexes(spec, header!);
  const feed = new FeedCollector(spec.source, spec.base);
  for (const { line, fields } of rows) {
    feed.row(line, () => {
      if (fields.length !== header!.fields.length) {
        throw new RowRejected(`${fields.length} fields where the header has ${header!.fields.length}`);
      }
      const cell = (name: keyof SdmxColumns) => fields[at[name]]!.trim();
      const code = cell('currency');
      const notCurrency = spec.notCurrencies?.[code];
      if (notCurrency) throw new RowRejected(notCurrency);
      if (cell('quote') !== spec.base) throw new RowRejected(`priced in ${show(cell('quote'))}, not ${spec.base}`);
      const date = calendarDate(cell('period'));
      if (cell('value') === '') return;
      const figure = {
        value: figureValue(cell('value')),
        units: unitsOfMultiplier(cell('unitMult')),
        direction: 'base-per-units' as const,
      };
      feed.add({ line, table: '', date, code, figure });
    });
  }
  return feed.result();
}

function columnIndexes(spec: SdmxFeed, header: { line: number; fields: string[] }): Record<keyof SdmxColumns, number> {
  const names = header.fields.map((name) => name.trim());
  const entries = Object.entries(spec.columns).map(([key, name]) => {
    const index = names.indexOf(name);
    if (index < 0) throw new FeedFormatError(spec.source, header.line, `not the publisher's SDMX CSV: no ${name} column`);
    return [key, index] as const;
  });
  return Object.fromEntries(entries) as Record<keyof SdmxColumns, number>;
}

/** UNIT_MULT 2 → "100": the figure prices 10^UNIT_MULT units. */
function unitsOfMultiplier(text: string): string {
  if (!/^\d{1,2}$/.test(text)) throw new RowRejected(`the unit multiplier ${show(text)} is not a power of ten from 0 to 99`);
  return `1${'0'.repeat(Number(text))}`;
}
