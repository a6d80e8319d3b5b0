import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Publication } from '../../src/domain/ecb';
import { periodOf } from '../../src/domain/currency/periods';
import { createTestApp, type TestApp } from '../helpers/app';
import { tableRates } from '../helpers/table-rates';

/** Made-up publications in the ECB's form (not real ECB data), spread over 25 years. */
const PUBLICATIONS: Publication[] = [
  { date: '1999-01-04', rates: { USD: '1.1789', JPY: '133.73' } },
  { date: '1999-02-01', rates: { USD: '1.1500', JPY: '130.00' } },
  { date: '2010-05-03', rates: { USD: '1.3', JPY: '124' } },
  { date: '2024-03-27', rates: { USD: '1.0830', JPY: '163.96' } },
  { date: '2024-03-28', rates: { USD: '1.0811', JPY: '163.45' } },
  { date: '2024-04-02', rates: { USD: '1.0764', JPY: '163.02' } },
];

describe('quarters', () => {
  it.each([
    ['2024-01-01', '2024-Q1', '2024-01-01', '2024-03-31'],
    ['2024-05-17', '2024-Q2', '2024-04-01', '2024-06-30'],
    ['2023-09-30', '2023-Q3', '2023-07-01', '2023-09-30'],
    ['2023-12-31', '2023-Q4', '2023-10-01', '2023-12-31'],
  ])('%s is in %s (%s to %s)', (date, key, start, end) => {
    expect(periodOf(date, 'quarter')).toEqual({ key, start, end });
  });
});

for (const execution of ['direct', 'sofa'] as const) {
  describe(`series decimals, rounding, quarters and long means (REST_EXECUTION=${execution})`, () => {
    let t: TestApp;
    let developer: string;
    beforeAll(async () => {
      t = await createTestApp(
        { REST_EXECUTION: execution, KEY_RATE_LIMIT: '100000' },
        { rates: tableRates(PUBLICATIONS), clock: () => new Date('2024-04-04T12:00:00Z') },
      );
      developer = await t.createKey('developer');
    });
    afterAll(() => t.close());

    const series = (query: string, headers: Record<string, string> = {}) =>
      t.call('GET', `/v1/currency/rates/series?${query}`, { key: developer, headers });

    it('rounds each published rate once with decimals and rounding (base EUR too)', async () => {
      const res = await series('start=2024-03-27&end=2024-03-28&symbols=USD,JPY&decimals=1&rounding=DOWN');
      expect(res.status).toBe(200);
      expect(res.body.data.entries.map((e: { rates: unknown }) => e.rates)).toEqual([
        { USD: '1.0', JPY: '163.9' },
        { USD: '1.0', JPY: '163.4' },
      ]);
      const halfUp = await series('start=2024-03-27&end=2024-03-27&symbols=USD&decimals=2');
      expect(halfUp.body.data.entries[0].rates).toEqual({ USD: '1.08' });
      const csv = await series('start=2024-03-27&end=2024-03-28&symbols=USD,JPY&decimals=3&rounding=CEILING', { accept: 'text/csv' });
      expect(csv.text).toBe('date,base,USD,JPY\r\n2024-03-27,EUR,1.083,163.960\r\n2024-03-28,EUR,1.082,163.450\r\n');
    });

    it('rounds exact means once: the mean of 1.0830 and 1.0811 is 1.08205', async () => {
      const res = await series('start=2024-03-01&end=2024-03-31&symbols=USD&group=month&decimals=4&rounding=HALF_EVEN');
      expect(res.body.data.entries[0]).toMatchObject({ period: '2024-03', publications: 2, rates: { USD: '1.0820' } });
      const up = await series('start=2024-03-01&end=2024-03-31&symbols=USD&group=month&decimals=4');
      expect(up.body.data.entries[0].rates).toEqual({ USD: '1.0821' });
    });

    it('groups by quarter', async () => {
      const res = await series('start=2024-01-01&end=2024-04-03&symbols=USD&group=quarter');
      expect(res.body.data.entries).toEqual([
        {
          period: '2024-Q1',
          start: '2024-03-27',
          end: '2024-03-28',
          publications: 2,
          rates: { USD: '1.08205' },
          partial: [],
          figures: [
            {
              code: 'USD',
              first: '1.0830',
              last: '1.0811',
              min: '1.0811',
              max: '1.0830',
              change: '-0.0019',
              changePercent: '-0.1754385964912280701754385964912280701754',
            },
          ],
        },
        {
          period: '2024-Q2',
          start: '2024-04-02',
          end: '2024-04-02',
          publications: 1,
          rates: { USD: '1.0764' },
          partial: [],
          // One publication: its figure four times, no change.
          figures: [{ code: 'USD', first: '1.0764', last: '1.0764', min: '1.0764', max: '1.0764', change: '0', changePercent: '0' }],
        },
      ]);
    });

    it.each(['year', 'quarter'])('answers %s means over 25 years in one page, no cursor', async (group) => {
      const res = await series(`start=1999-01-01&end=2024-04-03&symbols=USD&group=${group}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ start: '1999-01-04', end: '2024-04-03', nextCursor: null });
      expect(res.body.data.entries.map((e: { period: string }) => e.period)).toEqual(
        group === 'year' ? ['1999', '2010', '2024'] : ['1999-Q1', '2010-Q2', '2024-Q1', '2024-Q2'],
      );
      expect(res.headers.get('link')).toBeNull();
    });

    it('still pages days over ten years, and a cursor is bound to decimals and rounding', async () => {
      const first = await series('start=1999-01-01&end=2024-04-03&symbols=USD&decimals=2');
      const cursor = first.body.data.nextCursor as string;
      expect(cursor).toEqual(expect.any(String));
      const next = await series(`start=1999-01-01&end=2024-04-03&symbols=USD&decimals=2&cursor=${cursor}`);
      expect(next.status).toBe(200);
      const other = await series(`start=1999-01-01&end=2024-04-03&symbols=USD&decimals=3&cursor=${cursor}`);
      expect(other.body.error).toMatchObject({ code: 'INVALID_REQUEST', param: 'cursor' });
    });

    it('refuses decimals out of range and an unknown rounding, as convert does', async () => {
      expect((await series('start=2024-03-27&decimals=41')).body.error).toMatchObject({ code: 'INVALID_REQUEST', param: 'decimals' });
      expect((await series('start=2024-03-27&decimals=2&rounding=SIDEWAYS')).body.error).toMatchObject({
        code: 'INVALID_REQUEST',
        param: 'rounding',
      });
    });

    it('answers GraphQL rateSeries with the same rounded rates', async () => {
      const rest = await series('start=2024-03-01&end=2024-04-03&symbols=USD&group=quarter&decimals=3&rounding=UP');
      const graphql = await t.graphql(
        '{ rateSeries(start: "2024-03-01", end: "2024-04-03", symbols: ["USD"], group: "quarter", decimals: 3, rounding: UP) { entries { period rates } } }',
        {},
        developer,
      );
      expect(graphql.body.data.rateSeries.entries).toEqual(
        rest.body.data.entries.map(({ period, rates }: { period: string; rates: unknown }) => ({ period, rates })),
      );
    });
  });
}
