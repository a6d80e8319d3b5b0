import { asObject, type JsonDocument, type JsonValue } from './json-text';
import { isCalendarDate } from '../dates';
import { FeedCollector, figureValue, show } from './feed-collector';
import { feedJson, numberMember, requiredArray, rowObject, stringMember } from './feed-json';
import { FeedFormatError, type ParsedFeed } from './types';

/** Tables of mid rates; table C has bid and ask instead and is not read here. */
const MID_TABLES = new Set(['A', 'B']);

/**
 * Reads the National Bank of Poland's `exchangerates/tables/{A|B}/…?format=json` answer: an array of
 * tables `{ table, no, effectiveDate, rates: [{ currency, code, mid }] }`, `mid` złoty per one unit.
 * Each table is a publication of its own table ("A" daily, "B" weekly) on its effectiveDate.
 */
export function parseNbp(body: Uint8Array): ParsedFeed {
  const doc = feedJson('nbp', body);
  const feed = new FeedCollector('nbp', 'PLN');
  const tables = requiredArray('nbp', doc, doc.value, 'the response');
  if (tables.length === 0) throw new FeedFormatError('nbp', 1, 'the response holds no table');
  for (const item of tables) readTable(doc, feed, item);
  return feed.result();
}

function readTable(doc: JsonDocument, feed: FeedCollector, item: JsonValue): void {
  const line = doc.lineOf(item);
  const table = asObject(item);
  const id = table?.table;
  if (!table || typeof id !== 'string' || !MID_TABLES.has(id)) {
    throw new FeedFormatError('nbp', line, `not an NBP table of mid rates (table ${show(String(id))})`);
  }
  const date = table.effectiveDate;
  if (typeof date !== 'string' || !isCalendarDate(date))
    throw new FeedFormatError('nbp', line, 'the table has no effectiveDate that is a calendar day');
  for (const entry of requiredArray('nbp', doc, table.rates, `table ${id} "rates"`)) {
    const entryLine = doc.lineOf(entry);
    feed.row(entryLine, () => {
      const row = rowObject(entry);
      const figure = { value: figureValue(numberMember(row, 'mid')), units: '1', direction: 'base-per-units' as const };
      feed.add({ line: entryLine, table: id, date, code: stringMember(row, 'code'), figure });
    });
  }
}
