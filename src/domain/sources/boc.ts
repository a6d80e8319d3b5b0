import { asObject } from './json-text';
import { calendarDate, FeedCollector, figureValue, RowRejected, show } from './feed-collector';
import { feedJson, requiredArray, rowObject, stringMember } from './feed-json';
import { FeedFormatError, type ParsedFeed } from './types';

/** Valet names each series FX<currency>CAD: the price of one unit of the currency in Canadian dollars. */
const SERIES = /^FX([A-Z]{3})CAD$/;

/**
 * Reads a Bank of Canada Valet group answer (`observations/group/FX_RATES_DAILY/json`): each
 * observation holds its day `d` and, per series it has that day, `{ "v": "1.2345" }`. A series
 * absent from a day has no figure that day.
 */
export function parseBoc(body: Uint8Array): ParsedFeed {
  const doc = feedJson('boc', body);
  const root = asObject(doc.value);
  if (!root) throw new FeedFormatError('boc', 1, 'the response is not a JSON object');
  const observations = requiredArray('boc', doc, root.observations, '"observations"');
  const feed = new FeedCollector('boc', 'CAD');
  for (const item of observations) {
    const line = doc.lineOf(item);
    feed.row(line, () => {
      const observation = rowObject(item);
      const date = calendarDate(stringMember(observation, 'd'));
      for (const [series, entry] of Object.entries(observation)) {
        if (series === 'd') continue;
        const entryLine = doc.lineOf(entry);
        feed.row(entryLine, () => {
          const code = SERIES.exec(series)?.[1];
          if (!code) throw new RowRejected(`the series ${show(series)} is not named FX<currency>CAD`);
          const object = asObject(entry);
          if (!object) throw new RowRejected(`the series ${series} has no { "v": … } entry`);
          const value = figureValue(stringMember(object, 'v'));
          feed.add({ line: entryLine, table: '', date, code, figure: { value, units: '1', direction: 'base-per-units' } });
        });
      }
    });
  }
  return feed.result();
}
