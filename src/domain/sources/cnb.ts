import { asObject } from './json-text';
import { calendarDate, FeedCollector, figureValue, unitsText } from './feed-collector';
import { feedJson, numberMember, requiredArray, rowObject, stringMember } from './feed-json';
import { FeedFormatError, type ParsedFeed } from './types';

/**
 * Reads the Czech National Bank's `cnbapi/exrates/daily-year` (or `daily`) answer:
 * `{ "rates": [{ currencyCode, amount, validFor, rate }] }`, `amount` units costing `rate` korunas.
 * `rate` is a JSON number, read as the text the bank wrote ("0.1000" stays "0.1000").
 */
export function parseCnb(body: Uint8Array): ParsedFeed {
  const doc = feedJson('cnb', body);
  const root = asObject(doc.value);
  if (!root) throw new FeedFormatError('cnb', 1, 'the response is not a JSON object');
  const feed = new FeedCollector('cnb', 'CZK');
  for (const item of requiredArray('cnb', doc, root.rates, '"rates"')) {
    const line = doc.lineOf(item);
    feed.row(line, () => {
      const row = rowObject(item);
      const date = calendarDate(stringMember(row, 'validFor'));
      const figure = {
        value: figureValue(numberMember(row, 'rate')),
        units: unitsText(numberMember(row, 'amount')),
        direction: 'base-per-units' as const,
      };
      feed.add({ line, table: '', date, code: stringMember(row, 'currencyCode'), figure });
    });
  }
  return feed.result();
}
