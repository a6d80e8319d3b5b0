import { addDays } from '../../domain/calendar/berlin-time';
import type { FeedSourceId } from '../../services/currency/source-rates';

/** Where each source is fetched in production (its *_BASE_URL overrides it, e.g. for tests). */
export const DEFAULT_BASE_URLS: Readonly<Record<FeedSourceId, string>> = Object.freeze({
  boc: 'https://www.bankofcanada.ca/valet',
  nb: 'https://data.norges-bank.no/api',
  cnb: 'https://api.cnb.cz/cnbapi',
  nbp: 'https://api.nbp.pl/api',
  cbr: 'https://www.cbr.ru/scripts',
  boi: 'https://edge.boi.gov.il/FusionEdgeServer/sdmx/v2',
  imf: 'https://www.imf.org/external/np/fin/data',
  nbu: 'https://bank.gov.ua/NBU_Exchange',
});

/** Days back each fetch asks for: a long weekend, a holiday week and NBP's weekly table B all fit. */
export const FETCH_WINDOW_DAYS = 10;

const compact = (date: string) => date.replaceAll('-', '');

/** The last day of the month before `date`'s. */
function endOfPreviousMonth(date: string): string {
  return addDays(`${date.slice(0, 8)}01`, -1);
}

/**
 * The URLs of one fetch of `source` on `today` (the publisher's calendar day), for the last
 * FETCH_WINDOW_DAYS days: the requests of ../shared/feeds/README.md with their dates moved. A
 * source whose files are per month or year (IMF, CNB) also asks for the previous one early in a
 * new month or year, so the window never loses its first days.
 */
export function feedUrls(source: FeedSourceId, base: string, today: string): string[] {
  const from = addDays(today, -FETCH_WINDOW_DAYS);
  switch (source) {
    case 'boc':
      return [`${base}/observations/group/FX_RATES_DAILY/json?start_date=${from}`];
    case 'nb':
      return [`${base}/data/EXR/B..NOK.SP?startPeriod=${from}&endPeriod=${today}&format=csvdata`];
    case 'cnb': {
      const years = [...new Set([from.slice(0, 4), today.slice(0, 4)])];
      return years.map((year) => `${base}/exrates/daily-year?year=${year}&lang=EN`);
    }
    case 'nbp':
      return ['A', 'B'].map((table) => `${base}/exchangerates/tables/${table}/${from}/${today}/?format=json`);
    case 'cbr':
      // Without a date: the latest rates set, which the bank dates for the next day after 15:30 Moscow.
      return [`${base}/XML_daily.asp`];
    case 'boi':
      return [`${base}/data/dataflow/BOI.STATISTICS/EXR/1.0/?c[DATA_TYPE]=OF00&startperiod=${from}&endperiod=${today}&format=csv`];
    case 'imf': {
      const dates = from.slice(0, 7) === today.slice(0, 7) ? [today] : [endOfPreviousMonth(today), today];
      return dates.flatMap((date) =>
        ['REP', 'SDRCV'].map((report) => `${base}/rms_mth.aspx?SelectDate=${date}&reportType=${report}&tsvflag=Y`),
      );
    }
    case 'nbu':
      return [`${base}/exchange_site?start=${compact(from)}&end=${compact(today)}&sort=exchangedate&order=asc&json`];
  }
}
