import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Publication } from '../../src/domain/ecb';
import { createTestApp, type TestApp } from '../helpers/app';
import { gatedRates, revisableRates, tableRates } from '../helpers/table-rates';

/** Made-up publications in the ECB's form (not real ECB data): one in 2010, then March and April 2024. */
const PUBLICATIONS: Publication[] = [
  { date: '2010-01-04', rates: { USD: '1.4', JPY: '130' } },
  { date: '2024-03-27', rates: { USD: '1.0830', JPY: '163.96', RUB: '99.50' } },
  { date: '2024-03-28', rates: { USD: '1.0811', JPY: '163.45' } },
  { date: '2024-04-02', rates: { USD: '1.0764', JPY: '163.02' } },
  { date: '2024-04-03', rates: { USD: '1.0800', JPY: '163.50' } },
];

/** 2024-04-04 14:00 Berlin: the newest publication held is 2024-04-03, the next is expected today at 16:00. */
const CLOCK = () => new Date('2024-04-04T12:00:00Z');

/** Made-up weekday publications from 2023-01-02 (not real ECB data), each quoting `codes.length` currencies. */
function manyPublications(count: number, codes: readonly string[]): Publication[] {
  const out: Publication[] = [];
  for (let day = new Date('2023-01-02T00:00:00Z'); out.length < count; day = new Date(day.getTime() + 86_400_000)) {
    if (day.getUTCDay() === 0 || day.getUTCDay() === 6) continue;
    const i = out.length;
    out.push({
      date: day.toISOString().slice(0, 10),
      rates: Object.fromEntries(codes.map((code, j) => [code, (1 + j + (i % 97) / 1000).toFixed(4)])),
    });
  }
  return out;
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}

/** The series exports counted in the app's metrics, by source. */
async function exportCounts(t: TestApp): Promise<{ computed: number; cache: number }> {
  const text = await t.app.metrics.render();
  const count = (source: string) =>
    Number(new RegExp(`^measurement_series_exports_total\\{source="${source}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
  return { computed: count('computed'), cache: count('cache') };
}

const remaining = (headers: Headers) => Number(/;r=(\d+);/.exec(headers.get('ratelimit') ?? '')?.[1]);

for (const execution of ['direct', 'sofa'] as const) {
  describe(`REST_EXECUTION=${execution}: series exports`, () => {
    describe('a complete page is computed once per rates revision, then served from the cache', () => {
      let t: TestApp;
      let key: string;
      const rates = revisableRates(PUBLICATIONS);
      beforeAll(async () => {
        t = await createTestApp({ REST_EXECUTION: execution, KEY_RATE_LIMIT: '100000' }, { rates, clock: CLOCK });
        key = await t.createKey('developer');
      });
      afterAll(() => t.close());
      const series = (query: string, headers: Record<string, string> = {}) =>
        t.call('GET', `/v1/currency/rates/series?${query}`, { key, headers });

      it('answers the second identical export from the cache, the same bytes and validator; each format is a page of its own', async () => {
        const before = await exportCounts(t);
        const first = await series('start=2024-03-01&end=2024-03-31', { accept: 'text/csv' });
        const second = await series('start=2024-03-01&end=2024-03-31', { accept: 'text/csv' });
        expect(second.text).toBe(first.text);
        expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
        expect(second.headers.get('cache-control')).toBe('private, max-age=86400');
        expect(await exportCounts(t)).toEqual({ computed: before.computed + 1, cache: before.cache + 1 });
        const json = [await series('start=2024-03-01&end=2024-03-31'), await series('start=2024-03-01&end=2024-03-31')];
        expect(json[1]!.text).toBe(json[0]!.text);
        const notModified = await series('start=2024-03-01&end=2024-03-31', { 'if-none-match': json[0]!.headers.get('etag')! });
        expect(notModified.status).toBe(304);
        expect(await exportCounts(t)).toEqual({ computed: before.computed + 2, cache: before.cache + 3 });
      });

      it.each([
        ['start=2024-03-01&end=2024-04-30', { start: '2024-03-01', end: '2024-04-30' }],
        [
          'start=2024-03-01&end=2024-04-03&base=USD&group=month&symbols=JPY,RUB,EUR',
          { start: '2024-03-01', end: '2024-04-03', base: 'USD', group: 'month', symbols: ['JPY', 'RUB', 'EUR'] },
        ],
      ])('writes ?%s in JSON byte for byte as GraphQL execution serialises the field', async (query, variables) => {
        const rest = await series(query);
        const { body } = await t.graphql(
          `query ($start: Date!, $end: Date!, $symbols: [String!], $group: String, $base: String) {
            rateSeries(start: $start, end: $end, symbols: $symbols, group: $group, base: $base) { start end base group source symbols nextCursor complete change { code start startRate end endRate change changePercent } entries { period start end publications rates partial { code publications } figures { code first last min max change changePercent } } }
          }`,
          variables,
          key,
        );
        expect(rest.text).toBe(`{"data":${JSON.stringify(body.data.rateSeries)}}`);
      });

      it('computes a page that is not complete each time (a publication may still join it)', async () => {
        const before = await exportCounts(t);
        for (let i = 0; i < 2; i++)
          expect((await series('start=2024-04-01&end=2024-04-30', { accept: 'text/csv' })).headers.get('cache-control')).toBe('no-store');
        expect(await exportCounts(t)).toEqual({ computed: before.computed + 2, cache: before.cache });
      });

      it('computes the page again once the rates change (a correction of a past day included)', async () => {
        const query = 'start=2024-03-01&end=2024-03-31&symbols=USD';
        const first = await series(query, { accept: 'text/csv' });
        rates.publish(PUBLICATIONS.map((pub) => (pub.date === '2024-03-28' ? { ...pub, rates: { ...pub.rates, USD: '1.0812' } } : pub)));
        const before = await exportCounts(t);
        const corrected = await series(query, { accept: 'text/csv' });
        expect(corrected.text).toBe('date,base,USD\r\n2024-03-27,EUR,1.0830\r\n2024-03-28,EUR,1.0812\r\n');
        expect(corrected.headers.get('etag')).not.toBe(first.headers.get('etag'));
        expect(await exportCounts(t)).toEqual({ computed: before.computed + 1, cache: before.cache });
      });
    });

    describe('a cursor continues only the query that gave it', () => {
      let t: TestApp;
      let key: string;
      beforeAll(async () => {
        t = await createTestApp({ REST_EXECUTION: execution, KEY_RATE_LIMIT: '100000' }, { rates: tableRates(PUBLICATIONS), clock: CLOCK });
        key = await t.createKey('developer');
      });
      afterAll(() => t.close());
      const QUERY = 'start=2010-01-01&end=2024-03-31&symbols=USD,JPY&group=month';
      const series = (query: string, accept?: string) =>
        t.call('GET', `/v1/currency/rates/series?${query}`, { key, headers: accept ? { accept } : {} });

      it.each([
        ['base', `${QUERY}&base=USD`, undefined],
        ['symbols', QUERY.replace('symbols=USD,JPY', 'symbols=USD'), undefined],
        ['symbols, in another order', QUERY.replace('symbols=USD,JPY', 'symbols=JPY,USD'), undefined],
        ['group', QUERY.replace('group=month', 'group=year'), undefined],
        ['start', QUERY.replace('start=2010-01-01', 'start=2010-01-02'), undefined],
        ['end', QUERY.replace('end=2024-03-31', 'end=2024-03-30'), undefined],
        ['format (Accept)', QUERY, 'text/csv'],
      ])('refuses it with another %s: 400 INVALID_REQUEST on cursor', async (_member, query, accept) => {
        const cursor = (await series(QUERY)).body.data.nextCursor as string;
        expect((await series(`${QUERY}&cursor=${cursor}`)).status).toBe(200);
        const res = await series(`${query}&cursor=${cursor}`, accept);
        expect(res.status).toBe(400);
        expect(res.body.error).toMatchObject({ code: 'INVALID_REQUEST', param: 'cursor' });
        expect(res.body.error.message).toMatch(/continues another query.*start, end, group, base, symbols, decimals, rounding and format/);
      });

      it('answers the whole range in one CSV, with no cursor to follow', async () => {
        const whole = await series(QUERY, 'text/csv');
        expect(whole.status).toBe(200);
        expect(whole.headers.get('link')).toBeNull();
        expect(whole.text).toBe(
          'period,start,end,publications,base,USD,JPY,partial,' +
            'USD_first,USD_last,USD_min,USD_max,USD_change,USD_changePercent,JPY_first,JPY_last,JPY_min,JPY_max,JPY_change,JPY_changePercent\r\n' +
            '2010-01,2010-01-04,2010-01-04,1,EUR,1.4,130,,1.4,1.4,1.4,1.4,0,0,130,130,130,130,0,0\r\n' +
            '2024-03,2024-03-27,2024-03-28,2,EUR,1.08205,163.705,,1.0830,1.0811,1.0811,1.0830,-0.0019,-0.1754385964912280701754385964912280701754,' +
            '163.96,163.45,163.45,163.96,-0.51,-0.3110514759697487191998048304464503537448\r\n',
        );
        expect(whole.headers.get('content-disposition')).toBe('attachment; filename="ecb-rates-EUR-2010-01-04-2024-03-31.csv"');
      });
    });

    describe('a key has EXPORTS_IN_FLIGHT exports at once', () => {
      let t: TestApp;
      const rates = gatedRates(PUBLICATIONS);
      beforeAll(async () => {
        t = await createTestApp({ REST_EXECUTION: execution, KEY_RATE_LIMIT: '100000', EXPORTS_IN_FLIGHT: '2' }, { rates, clock: CLOCK });
      });
      afterAll(() => {
        rates.open();
        return t.close();
      });

      it('refuses a third while two are computing: 429 RATE_LIMIT_EXCEEDED with Retry-After; another key and the slots given back still export', async () => {
        const key = await t.createKey('developer');
        const other = await t.createKey('developer');
        const series = (query: string, as = key) =>
          t.call('GET', `/v1/currency/rates/series?${query}`, { key: as, headers: { accept: 'text/csv' } });
        rates.close();
        const held = [series('start=2024-03-01&end=2024-03-31'), series('start=2024-03-01&end=2024-04-03&group=month')];
        await until(() => rates.waiting() === 2);
        // Without the cap the third would wait at the gate too: a few seconds decide it.
        const third = await Promise.race([
          series('start=2024-03-01&end=2024-03-29'),
          new Promise<undefined>((resolve) => setTimeout(resolve, 5000)),
        ]);
        if (third === undefined) rates.open();
        expect(third?.status).toBe(429);
        expect(third!.headers.get('retry-after')).toBe('1');
        expect(third!.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(third!.body.error).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', status: 429 });
        expect(third!.body.error.message).toMatch(/at most 2 exports in flight per key/);
        const another = series('start=2024-03-01&end=2024-03-29', other);
        await until(() => rates.waiting() === 3);
        rates.open();
        expect((await Promise.all([...held, another])).map((res) => res.status)).toEqual([200, 200, 200]);
        expect((await series('start=2024-03-01&end=2024-03-29')).status).toBe(200);
      });
    });

    describe('a computed page costs the key one request per 10,000 rates', () => {
      let t: TestApp;
      const codes = Array.from(
        { length: 40 },
        (_, i) => `X${String.fromCharCode(65 + Math.floor(i / 26))}${String.fromCharCode(65 + (i % 26))}`,
      );
      beforeAll(async () => {
        // 300 publications × 40 currencies: 12,000 rates, two requests.
        t = await createTestApp(
          { REST_EXECUTION: execution, KEY_RATE_LIMIT: '10' },
          { rates: tableRates(manyPublications(300, codes)), clock: CLOCK },
        );
      });
      afterAll(() => t.close());
      const series = async (query: string) =>
        t.call('GET', `/v1/currency/rates/series?${query}`, { key: await t.createKey('developer'), headers: { accept: 'text/csv' } });

      it.each([
        ['every currency, computed: 2', 'start=2023-01-01&end=2023-12-31', 8],
        ['every currency again, from the cache: 1', 'start=2023-01-01&end=2023-12-31', 9],
        ['one currency: 1', 'start=2023-01-01&end=2023-12-30&symbols=XAA', 9],
        ['a page not complete, computed each time: 2', 'start=2023-01-01&end=2024-12-31', 8],
      ])('%s', async (_what, query, left) => {
        const res = await series(query);
        expect(res.status).toBe(200);
        expect(remaining(res.headers)).toBe(left);
      });
    });
  });
}
