import { describe, expect, it } from 'vitest';
import { feedUrls } from '../../../src/data/sources/feed-urls';
import { nextFetchDelayMs } from '../../../src/data/sources/fetch-plan';
import { SourceHistory } from '../../../src/domain/sources/history';

const B = 'http://feeds.test';

describe('the URLs of one fetch: the last ten days, as each publisher takes its dates', () => {
  it.each([
    ['boc', '2026-04-14', [`${B}/observations/group/FX_RATES_DAILY/json?start_date=2026-04-04`]],
    ['nb', '2026-04-14', [`${B}/data/EXR/B..NOK.SP?startPeriod=2026-04-04&endPeriod=2026-04-14&format=csvdata`]],
    ['cnb', '2026-04-14', [`${B}/exrates/daily-year?year=2026&lang=EN`]],
    ['cnb', '2026-01-05', [`${B}/exrates/daily-year?year=2025&lang=EN`, `${B}/exrates/daily-year?year=2026&lang=EN`]],
    [
      'nbp',
      '2026-04-14',
      [`${B}/exchangerates/tables/A/2026-04-04/2026-04-14/?format=json`, `${B}/exchangerates/tables/B/2026-04-04/2026-04-14/?format=json`],
    ],
    ['cbr', '2026-04-14', [`${B}/XML_daily.asp`]],
    [
      'boi',
      '2026-04-14',
      [`${B}/data/dataflow/BOI.STATISTICS/EXR/1.0/?c[DATA_TYPE]=OF00&startperiod=2026-04-04&endperiod=2026-04-14&format=csv`],
    ],
    [
      'imf',
      '2026-04-20',
      [
        `${B}/rms_mth.aspx?SelectDate=2026-04-20&reportType=REP&tsvflag=Y`,
        `${B}/rms_mth.aspx?SelectDate=2026-04-20&reportType=SDRCV&tsvflag=Y`,
      ],
    ],
    [
      'imf',
      '2026-03-02',
      [
        `${B}/rms_mth.aspx?SelectDate=2026-02-28&reportType=REP&tsvflag=Y`,
        `${B}/rms_mth.aspx?SelectDate=2026-02-28&reportType=SDRCV&tsvflag=Y`,
        `${B}/rms_mth.aspx?SelectDate=2026-03-02&reportType=REP&tsvflag=Y`,
        `${B}/rms_mth.aspx?SelectDate=2026-03-02&reportType=SDRCV&tsvflag=Y`,
      ],
    ],
    ['nbu', '2026-04-14', [`${B}/exchange_site?start=20260404&end=20260414&sort=exchangedate&order=asc&json`]],
  ] as const)('%s on %s', (source, today, urls) => {
    expect(feedUrls(source, B, today)).toEqual(urls);
  });
});

describe('when a source is fetched next', () => {
  const tuning = { pollMs: 900_000, maxWaitMs: 6 * 3_600_000 };
  const held = SourceHistory.from([
    {
      source: 'boc',
      table: '',
      date: '2026-04-13',
      base: 'CAD',
      figures: { USD: { value: '1.37', units: '1', direction: 'base-per-units' } },
    },
  ]);
  const half = () => 0.5;

  it('waits for the next publication due, plus its jitter, when the last one is held', () => {
    // Tuesday 2026-04-14 12:00 UTC; the Bank of Canada's Tuesday publication is due at 20:30 UTC.
    expect(nextFetchDelayMs('boc', held, new Date('2026-04-14T12:00:00Z'), half, { ...tuning, maxWaitMs: 86_400_000 }, false)).toBe(
      8.5 * 3_600_000 + 30_000,
    );
    expect(nextFetchDelayMs('boc', held, new Date('2026-04-14T12:00:00Z'), half, tuning, false)).toBe(6 * 3_600_000);
  });

  it('polls while a due publication is missing, after a failure, and while nothing is held', () => {
    expect(nextFetchDelayMs('boc', held, new Date('2026-04-14T21:00:00Z'), half, tuning, false)).toBe(900_000);
    expect(nextFetchDelayMs('boc', held, new Date('2026-04-14T12:00:00Z'), half, tuning, true)).toBe(900_000);
    expect(nextFetchDelayMs('nb', held, new Date('2026-04-14T12:00:00Z'), half, tuning, false)).toBe(900_000);
  });
});
