import { dottedDate, FeedCollector, figureValue, unitsText } from './feed-collector';
import { feedJson, numberMember, requiredArray, rowObject, stringMember } from './feed-json';
import type { ParsedFeed } from './types';

/**
 * Reads the National Bank of Ukraine's `NBU_Exchange/exchange_site?…&json` answer: an array of
 * `{ exchangedate: "01.03.2026", cc, rate, units, … }`, `units` units costing `rate` hryvnias
 * (`rate_per_unit` is the bank's own division and is not read). Numbers are kept as written.
 */
export function parseNbu(body: Uint8Array): ParsedFeed {
  const doc = feedJson('nbu', body);
  const feed = new FeedCollector('nbu', 'UAH');
  for (const item of requiredArray('nbu', doc, doc.value, 'the response')) {
    const line = doc.lineOf(item);
    feed.row(line, () => {
      const row = rowObject(item);
      const date = dottedDate(stringMember(row, 'exchangedate'));
      const figure = {
        value: figureValue(numberMember(row, 'rate')),
        units: unitsText(numberMember(row, 'units')),
        direction: 'base-per-units' as const,
      };
      feed.add({ line, table: '', date, code: stringMember(row, 'cc'), figure });
    });
  }
  return feed.result();
}
