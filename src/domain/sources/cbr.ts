import { CBR_CURRENCY_IDS } from './cbr-ids';
import { dottedDate, FeedCollector, figureValue, RowRejected, show, unitsText } from './feed-collector';
import { readXml, type XmlElement, XmlSyntaxError } from './xml-elements';
import { FeedFormatError, type ParsedFeed } from './types';

/** The bank answers in windows-1251 (its XML declaration says so), whatever the bytes hold. */
const WINDOWS_1251 = new TextDecoder('windows-1251');

function root(body: Uint8Array): XmlElement {
  const text = WINDOWS_1251.decode(body);
  if (text.trim() === '') throw new FeedFormatError('cbr', 1, 'the response is empty');
  try {
    return readXml(text);
  } catch (error) {
    if (error instanceof XmlSyntaxError) throw new FeedFormatError('cbr', error.line, `not XML: ${error.reason}`);
    throw error;
  }
}

/** The text of the one child element of that name. */
function childText(element: XmlElement, name: string): string {
  const found = element.children.filter((child) => child.name === name);
  if (found.length !== 1) throw new RowRejected(`<${element.name}> has ${found.length} <${name}> elements, not one`);
  return found[0]!.text.trim();
}

/** `Nominal` units cost `Value` roubles; the value has a decimal comma. `VunitRate` (per one unit) is not read. */
function figureOf(element: XmlElement) {
  return {
    value: figureValue(childText(element, 'Value')),
    units: unitsText(childText(element, 'Nominal')),
    direction: 'base-per-units' as const,
  };
}

/**
 * Reads the Bank of Russia's `XML_daily.asp` (`<ValCurs Date="25.04.2026">`, one `<Valute>` per
 * currency with its CharCode) or `XML_dynamic.asp` (`<ValCurs ID="R01010">`, one `<Record Date=…>`
 * per day, the currency named only by the bank's identifier).
 */
export function parseCbr(body: Uint8Array): ParsedFeed {
  const valCurs = root(body);
  if (valCurs.name !== 'ValCurs') throw new FeedFormatError('cbr', valCurs.line, `the root element is <${valCurs.name}>, not <ValCurs>`);
  const feed = new FeedCollector('cbr', 'RUB');
  if (valCurs.attrs.ID !== undefined) readDynamic(valCurs, feed);
  else readDaily(valCurs, feed);
  return feed.result();
}

function readDaily(valCurs: XmlElement, feed: FeedCollector): void {
  let date: string;
  try {
    date = dottedDate(valCurs.attrs.Date ?? '');
  } catch (error) {
    if (error instanceof RowRejected) throw new FeedFormatError('cbr', valCurs.line, `<ValCurs Date>: ${error.message}`);
    throw error;
  }
  for (const valute of valCurs.children) {
    feed.row(valute.line, () => {
      if (valute.name !== 'Valute') throw new RowRejected(`<${valute.name}> where a <Valute> is expected`);
      feed.add({ line: valute.line, table: '', date, code: childText(valute, 'CharCode'), figure: figureOf(valute) });
    });
  }
}

function readDynamic(valCurs: XmlElement, feed: FeedCollector): void {
  const id = valCurs.attrs.ID!;
  const code = CBR_CURRENCY_IDS[id];
  if (!code) throw new FeedFormatError('cbr', valCurs.line, `the Bank of Russia currency id ${show(id)} is not one this loader knows`);
  for (const record of valCurs.children) {
    feed.row(record.line, () => {
      if (record.name !== 'Record') throw new RowRejected(`<${record.name}> where a <Record> is expected`);
      if (record.attrs.Id !== undefined && record.attrs.Id !== id)
        throw new RowRejected(`a record of ${show(record.attrs.Id)} in the series of ${id}`);
      feed.add({ line: record.line, table: '', date: dottedDate(record.attrs.Date ?? ''), code, figure: figureOf(record) });
    });
  }
}
