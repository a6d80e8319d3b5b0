import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Publication } from '../../src/domain/ecb';
import { createTestApp, type TestApp } from '../helpers/app';
import { tableRates } from '../helpers/table-rates';

/** Made-up publications in the ECB's form (not real ECB data): one in 2010, then March and April 2024. */
const PUBLICATIONS: Publication[] = [
  { date: '2010-01-04', rates: { USD: '1.4', JPY: '130' } },
  { date: '2024-03-27', rates: { USD: '1.0830', JPY: '163.96', RUB: '99.50' } },
  { date: '2024-03-28', rates: { USD: '1.0811', JPY: '163.45' } },
  { date: '2024-04-02', rates: { USD: '1.0764', JPY: '163.02' } },
  { date: '2024-04-03', rates: { USD: '1.0800', JPY: '163.50' } },
];

/** Each route test runs under both REST executions: direct, and SOFA through Yoga. */
for (const execution of ['direct', 'sofa'] as const) {
  describe(`REST_EXECUTION=${execution}`, () => {
    let t: TestApp;
    let free: string;
    let developer: string;
    beforeAll(async () => {
      // 2024-04-04 14:00 Berlin: the newest publication held is 2024-04-03, the next is expected today at 16:00.
      t = await createTestApp(
        { REST_EXECUTION: execution, KEY_RATE_LIMIT: '100000' },
        { rates: tableRates(PUBLICATIONS), clock: () => new Date('2024-04-04T12:00:00Z') },
      );
      free = await t.createKey('free');
      developer = await t.createKey('developer');
    });
    afterAll(() => t.close());

    const series = (query: string, headers: Record<string, string> = {}, key = developer) =>
      t.call('GET', `/v1/currency/rates/series?${query}`, { key, headers });

    describe('GET /v1/currency/rates/series', () => {
      it('lists one entry per publication, as published, for a range that ended: private, a day, strong ETag', async () => {
        const res = await series('start=2024-03-01&end=2024-03-31&symbols=usd,JPY');
        expect(res.status).toBe(200);
        expect(res.body.data).toEqual({
          start: '2024-03-01',
          end: '2024-03-31',
          base: 'EUR',
          group: 'day',
          source: 'ecb',
          symbols: ['USD', 'JPY'],
          nextCursor: null,
          complete: true,
          // The change between the page's two ends, per currency (its fluctuation).
          change: [
            {
              code: 'USD',
              start: '2024-03-27',
              startRate: '1.0830',
              end: '2024-03-28',
              endRate: '1.0811',
              change: '-0.0019',
              changePercent: '-0.1754385964912280701754385964912280701754',
            },
            {
              code: 'JPY',
              start: '2024-03-27',
              startRate: '163.96',
              end: '2024-03-28',
              endRate: '163.45',
              change: '-0.51',
              changePercent: '-0.3110514759697487191998048304464503537448',
            },
          ],
          entries: [
            {
              period: '2024-03-27',
              start: '2024-03-27',
              end: '2024-03-27',
              publications: 1,
              rates: { USD: '1.0830', JPY: '163.96' },
              partial: [],
              figures: [],
            },
            {
              period: '2024-03-28',
              start: '2024-03-28',
              end: '2024-03-28',
              publications: 1,
              rates: { USD: '1.0811', JPY: '163.45' },
              partial: [],
              figures: [],
            },
          ],
        });
        expect(res.headers.get('cache-control')).toBe('private, max-age=86400');
        expect(res.headers.get('vary')).toBe('Accept, Accept-Encoding');
        expect(res.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
        expect(res.headers.get('link')).toBeNull();
      });

      it('answers 304 Not Modified to a matching If-None-Match, with the validator and caching fields, without a body', async () => {
        const first = await series('start=2024-03-01&end=2024-03-31&symbols=USD');
        const etag = first.headers.get('etag')!;
        for (const candidate of [etag, `W/${etag}`, `"other", ${etag}`]) {
          const res = await series('start=2024-03-01&end=2024-03-31&symbols=USD', { 'if-none-match': candidate });
          expect(res.status).toBe(304);
          expect(res.text).toBe('');
          expect(res.headers.get('etag')).toBe(etag);
          expect(res.headers.get('cache-control')).toBe('private, max-age=86400');
          expect(res.headers.get('vary')).toBe('Accept, Accept-Encoding');
        }
        expect((await series('start=2024-03-01&end=2024-03-31&symbols=USD', { 'if-none-match': '"other"' })).status).toBe(200);
        // Another representation, another validator: the JSON one does not revalidate the CSV.
        const csv = await series('start=2024-03-01&end=2024-03-31&symbols=USD', { accept: 'text/csv', 'if-none-match': etag });
        expect(csv.status).toBe(200);
        expect(csv.headers.get('etag')).not.toBe(etag);
      });

      it.each([
        ['2024-04-03', true],
        ['2024-04-04', false],
        ['2024-12-31', false],
      ])(
        'up to %s is complete: %s (the next publication is expected on 2024-04-04, whatever day the page is clipped to)',
        async (end, complete) => {
          const res = await series(`start=2024-04-01&end=${end}&symbols=USD`);
          expect(res.body.data).toMatchObject({ end: '2024-04-04' < end ? '2024-04-04' : end, complete });
          expect(res.headers.get('cache-control')).toBe(complete ? 'private, max-age=86400' : 'no-store');
        },
      );

      it('is not cached while a publication may still join the range (it reaches the next expected one)', async () => {
        const res = await series('start=2024-04-01&end=2024-04-30');
        expect(res.status).toBe(200);
        expect(res.body.data).toMatchObject({ start: '2024-04-01', end: '2024-04-04', complete: false });
        expect(res.headers.get('cache-control')).toBe('no-store');
        expect(res.headers.get('etag')).toBeNull();
        const again = await series('start=2024-04-01&end=2024-04-30', { 'if-none-match': '*' });
        expect(again.status).toBe(200);
      });

      it('serves the same rows as RFC 4180 CSV for Accept: text/csv', async () => {
        const res = await series('start=2024-03-01&end=2024-04-02&symbols=USD,JPY', { accept: 'text/csv' });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
        expect(res.text).toBe(
          'date,base,USD,JPY\r\n2024-03-27,EUR,1.0830,163.96\r\n2024-03-28,EUR,1.0811,163.45\r\n2024-04-02,EUR,1.0764,163.02\r\n',
        );
        expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(res.text)));
        expect(res.headers.get('cache-control')).toBe('private, max-age=86400');
      });

      it('names CSV and NDJSON downloads after their page (Content-Disposition), and JSON not', async () => {
        const csv = await series('start=2024-03-01&end=2024-04-02&symbols=USD', { accept: 'text/csv' });
        expect(csv.headers.get('content-disposition')).toBe('attachment; filename="ecb-rates-EUR-2024-03-01-2024-04-02.csv"');
        const ndjson = await series('start=2024-03-01&end=2024-04-02&base=USD&symbols=JPY', { accept: 'application/x-ndjson' });
        expect(ndjson.headers.get('content-disposition')).toBe('attachment; filename="ecb-rates-USD-2024-03-01-2024-04-02.ndjson"');
        expect((await series('start=2024-03-01&end=2024-04-02&symbols=USD')).headers.get('content-disposition')).toBeNull();
      });

      it('runs to the newest publication without end, and does not cache that growing page', async () => {
        const res = await series('start=2024-03-27&symbols=USD');
        expect(res.status).toBe(200);
        expect(res.body.data).toMatchObject({ start: '2024-03-27', end: '2024-04-03', complete: false, nextCursor: null });
        expect(res.headers.get('cache-control')).toBe('no-store');
        expect(res.headers.get('etag')).toBeNull();
      });

      it('serves the same rows as NDJSON for Accept: application/x-ndjson: each line a JSON entry with its base', async () => {
        const query = 'start=2024-03-01&end=2024-04-02&base=USD&symbols=JPY,EUR&group=month';
        const json = await series(query);
        const res = await series(query, { accept: 'application/x-ndjson' });
        expect(res.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
        expect(res.text.endsWith('\n')).toBe(true);
        const lines = res.text
          .slice(0, -1)
          .split('\n')
          .map((line) => JSON.parse(line));
        expect(lines).toEqual(json.body.data.entries.map((entry: object) => ({ base: 'USD', ...entry })));
      });

      it('format=csv|ndjson|json answers as that Accept does, and wins over Accept (a spreadsheet or a browser sets none)', async () => {
        const query = 'start=2024-03-01&end=2024-04-02&symbols=USD,JPY';
        for (const [format, accept] of [
          ['csv', 'text/csv'],
          ['ndjson', 'application/x-ndjson'],
        ]) {
          const byAccept = await series(query, { accept: accept! });
          const byFormat = await series(`${query}&format=${format}`, { accept: 'application/json' });
          expect(byFormat.status).toBe(200);
          expect(byFormat.text).toBe(byAccept.text);
          for (const header of ['content-type', 'content-disposition', 'etag', 'cache-control'])
            expect(byFormat.headers.get(header), header).toBe(byAccept.headers.get(header));
        }
        const json = await series(`format=json&${query}`, { accept: 'text/csv' });
        expect(json.body.data.entries).toHaveLength(3);
      });

      it("an unknown or repeated format: 400 naming the values, Accept and the format's own routes", async () => {
        const wrong = await series('start=2024-03-01&format=xlsx');
        expect(wrong.status).toBe(400);
        expect(wrong.body.error).toMatchObject({ code: 'INVALID_REQUEST', param: 'format' });
        expect(wrong.body.error.message).toContain('json, csv, ndjson');
        expect(wrong.body.error.message).toContain('text/csv');
        expect(wrong.body.error.message).toContain('/v1/currency/rates/series.csv');
        const twice = await series('start=2024-03-01&format=csv&format=ndjson');
        expect(twice.body.error).toMatchObject({ code: 'INVALID_REQUEST', param: 'format' });
      });

      it('series.csv and series.ndjson: one media type each, whatever Accept says, the same bytes and validator as by Accept', async () => {
        const query = 'start=2024-03-01&end=2024-04-02&symbols=USD,JPY';
        for (const [suffix, accept] of [
          ['csv', 'text/csv'],
          ['ndjson', 'application/x-ndjson'],
        ]) {
          const own = await t.call('GET', `/v1/currency/rates/series.${suffix}?${query}`, {
            key: developer,
            headers: { accept: 'application/json' },
          });
          const byAccept = await series(query, { accept: accept! });
          expect(own.status).toBe(200);
          expect(own.text).toBe(byAccept.text);
          expect(own.headers.get('etag')).toBe(byAccept.headers.get('etag'));
          expect(own.headers.get('content-disposition')).toBe(byAccept.headers.get('content-disposition'));
          expect(own.headers.get('vary') ?? '').not.toContain('Accept,');
          expect(byAccept.headers.get('vary')).toMatch(/^Accept\b/);
          const refused = await t.call('GET', `/v1/currency/rates/series.${suffix}?${query}&format=json`, { key: developer });
          expect(refused.body.error).toMatchObject({ code: 'INVALID_REQUEST', param: 'format' });
          expect(refused.body.error.message).toContain('GET /v1/currency/rates/series?format=');
        }
        expect((await t.call('GET', `/v1/currency/rates/seriesXcsv?${query}`, { key: developer })).status).toBe(404);
        expect((await t.call('GET', `/v1/currency/rates/series.csv?${query}`)).status).toBe(401);
      });

      it('gives the exact mean of each month with the first and last publication it covers and their number', async () => {
        const res = await series('start=2024-03-01&end=2024-04-03&group=month&symbols=USD,RUB');
        expect(res.body.data.entries).toEqual([
          // (1.0830 + 1.0811) / 2 and RUB quoted on one publication of two.
          {
            period: '2024-03',
            start: '2024-03-27',
            end: '2024-03-28',
            publications: 2,
            rates: { USD: '1.08205', RUB: '99.5' },
            partial: [{ code: 'RUB', publications: 1 }],
            // First, last, lowest and highest as published; the change from first to last, exact.
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
              { code: 'RUB', first: '99.50', last: '99.50', min: '99.50', max: '99.50', change: '0', changePercent: '0' },
            ],
          },
          {
            period: '2024-04',
            start: '2024-04-02',
            end: '2024-04-03',
            publications: 2,
            rates: { USD: '1.0782' },
            partial: [],
            figures: [
              {
                code: 'USD',
                first: '1.0764',
                last: '1.0800',
                min: '1.0764',
                max: '1.0800',
                change: '0.0036',
                changePercent: '0.3344481605351170568561872909698996655518',
              },
            ],
          },
        ]);
        const csv = await series('start=2024-03-01&end=2024-03-31&group=month&symbols=USD,RUB', { accept: 'text/csv' });
        expect(csv.text).toBe(
          'period,start,end,publications,base,USD,RUB,partial,' +
            'USD_first,USD_last,USD_min,USD_max,USD_change,USD_changePercent,RUB_first,RUB_last,RUB_min,RUB_max,RUB_change,RUB_changePercent\r\n' +
            '2024-03,2024-03-27,2024-03-28,2,EUR,1.08205,99.5,RUB=1,' +
            '1.0830,1.0811,1.0811,1.0830,-0.0019,-0.1754385964912280701754385964912280701754,99.50,99.50,99.50,99.50,0,0\r\n',
        );
      });

      it('rounds a mean that does not terminate once, under the unrounded rule', async () => {
        const res = await series('start=2024-03-27&end=2024-04-02&group=year&symbols=USD');
        // (1.0830 + 1.0811 + 1.0764) / 3 = 1.0801666…: 40 significant digits, half-even.
        expect(res.body.data.entries[0].rates.USD).toBe('1.080166666666666666666666666666666666667');
      });

      it.each([
        ['text/csv', 'text/csv'],
        ['text/*', 'text/csv'],
        ['application/x-ndjson', 'application/x-ndjson'],
        ['application/json, text/csv;q=0.5', 'application/json'],
        ['text/csv;q=0.9, application/x-ndjson', 'application/x-ndjson'],
        ['*/*', 'application/json'],
        ['application/*', 'application/json'],
        ['image/png', 'application/json'],
        ['text/csv;q=0', 'application/json'],
      ])('negotiates Accept: %s to %s (JSON when nothing offered is acceptable: the contract has no 406)', async (accept, mediaType) => {
        const res = await series('start=2024-03-01&end=2024-03-31&symbols=USD', { accept });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')!.split(';')[0]).toBe(mediaType);
      });

      it('covers at most ten years per call, a cursor and a Link continuing', async () => {
        const first = await series('start=2010-01-01&end=2024-03-31&symbols=USD&group=month');
        // Ten years from the first publication held, cut at the end of a whole month.
        expect(first.body.data).toMatchObject({ start: '2010-01-04', end: '2019-12-31' });
        const cursor = first.body.data.nextCursor as string;
        expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(first.headers.get('link')).toBe(
          `</v1/currency/rates/series?start=2010-01-01&end=2024-03-31&symbols=USD&group=month&cursor=${cursor}>; rel="next"`,
        );
        const second = await series(`start=2010-01-01&end=2024-03-31&symbols=USD&group=month&cursor=${cursor}`);
        expect(second.status).toBe(200);
        expect(second.body.data.nextCursor).toBeNull();
        expect(second.body.data.entries.map((e: { period: string }) => e.period)).toEqual(['2024-03']);
        // CSV (a download) is never cut: the whole range in one answer, no Link.
        const csv = await series('start=2010-01-01&end=2024-03-31&symbols=USD&group=month', { accept: 'text/csv' });
        expect(csv.headers.get('link')).toBeNull();
        expect(
          csv.text
            .trimEnd()
            .split('\r\n')
            .map((row: string) => row.split(',')[0]),
        ).toEqual(['period', '2010-01', '2024-03']);
        const foreign = await series(`start=2011-01-01&end=2024-03-31&symbols=USD&group=month&cursor=${cursor}`);
        expect(foreign.body.error).toMatchObject({ code: 'INVALID_REQUEST', param: 'cursor' });
      });

      it.each([
        ['start=2024-03-01&end=2024-03-31', 'free', 403, 'PLAN_REQUIRED', undefined],
        ['start=2024-03-01&end=2024-03-31', 'none', 401, 'UNAUTHORIZED', undefined],
        ['end=2024-03-31', 'developer', 400, 'INVALID_REQUEST', 'start'],
        ['start=2024-03-01&end=2024-02-30', 'developer', 400, 'INVALID_REQUEST', 'end'],
        ['start=2024-03-31&end=2024-03-01', 'developer', 400, 'INVALID_REQUEST', 'end'],
        ['start=2024-03-01&end=2024-03-31&group=fortnight', 'developer', 400, 'INVALID_REQUEST', 'group'],
        ['start=2024-03-01&end=2024-03-31&symbols=USD,,JPY', 'developer', 400, 'INVALID_REQUEST', 'symbols'],
        ['start=2024-03-01&end=2024-03-31&symbols=', 'developer', 400, 'INVALID_REQUEST', 'symbols'],
        ['start=2024-03-01&end=2024-03-31&base=XYZ', 'developer', 400, 'UNKNOWN_CURRENCY', 'base'],
        ['start=2024-03-01&end=2024-03-31&cursor=nope', 'developer', 400, 'INVALID_REQUEST', 'cursor'],
        ['start=2024-03-01&end=2024-03-31&other=1', 'developer', 400, 'INVALID_REQUEST', 'other'],
        ['start=2024-04-01&end=2024-04-30&symbols=RUB', 'developer', 404, 'RATE_NOT_FOUND', 'symbols'],
        ['start=2000-01-01&end=2000-12-31', 'developer', 404, 'RATE_NOT_FOUND', 'start'],
      ])('?%s with a %s key: %i %s', async (query, plan, status, code, param) => {
        const key = plan === 'free' ? free : plan === 'developer' ? developer : undefined;
        const res = await t.call('GET', `/v1/currency/rates/series?${query}`, { ...(key ? { key } : {}), headers: { accept: 'text/csv' } });
        expect(res.status).toBe(status);
        expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(res.body.error.code).toBe(code);
        expect(res.body.error.param).toBe(param);
      });

      it('uses no quota', async () => {
        const { key, account } = await t.createAccountKey('developer');
        for (let i = 0; i < 3; i++) expect((await series('start=2024-03-01&end=2024-03-31', {}, key)).status).toBe(200);
        expect(await t.store.monthlyUsage(account.id, '2024-04')).toBe(0);
      });
    });

    describe('GraphQL rateSeries', () => {
      const QUERY = `query ($start: Date!, $end: Date!, $symbols: [String!], $group: String, $base: String) {
        rateSeries(start: $start, end: $end, symbols: $symbols, group: $group, base: $base) { start end base group symbols nextCursor complete change { code start startRate end endRate change changePercent } entries { period start end publications rates partial { code publications } figures { code first last min max change changePercent } } }
      }`;

      it('answers the same series as REST, symbols a list', async () => {
        const rest = await series('start=2024-03-01&end=2024-04-03&group=month&symbols=USD,RUB');
        const { body } = await t.graphql(
          QUERY,
          { start: '2024-03-01', end: '2024-04-03', group: 'month', symbols: ['usd', 'RUB'] },
          developer,
        );
        const { source: _source, ...fields } = rest.body.data;
        expect(body.data.rateSeries).toEqual(fields);
      });

      it('answers one rateSeries per document: an alias asking for a second one gets INVALID_REQUEST, alone', async () => {
        const { body } = await t.graphql(
          '{ a: rateSeries(start: "2024-03-01", end: "2024-03-31") { end } b: rateSeries(start: "2024-03-01", end: "2024-03-31") { end } units { id } }',
          {},
          developer,
        );
        expect(body.data.a).toEqual({ end: '2024-03-31' });
        expect(body.data.b).toBeNull();
        expect(body.data.units.length).toBeGreaterThan(0);
        expect(body.errors.map((e: { path: string[]; extensions: { code: string } }) => [e.path, e.extensions.code])).toEqual([
          [['b'], 'INVALID_REQUEST'],
        ]);
      });

      it.each([
        [{ start: '2024-03-01', end: '2024-03-31' }, 'free', 'PLAN_REQUIRED'],
        [{ start: '2024-03-01', end: '2024-03-31', symbols: ['USD,JPY'] }, 'developer', 'INVALID_REQUEST'],
        [{ start: '2024-03-01', end: '2024-03-31', symbols: [] }, 'developer', 'INVALID_REQUEST'],
        [{ start: '2024-03-01', end: '2024-03-31', group: 'fortnight' }, 'developer', 'INVALID_REQUEST'],
        [{ start: '2024-03-01', end: '2024-03-31', base: 'XYZ' }, 'developer', 'UNKNOWN_CURRENCY'],
        [{ start: '2024-03-01', end: '2024-02-30' }, 'developer', 'INVALID_REQUEST'],
      ])('%j with a %s key: %s', async (variables, plan, code) => {
        const { body } = await t.graphql(QUERY, variables, plan === 'free' ? free : developer);
        expect(body.errors[0].extensions.code).toBe(code);
      });
    });
  });
}

describe('a series while the rates held are behind (the refresh has been failing)', () => {
  let t: TestApp;
  let developer: string;
  beforeAll(async () => {
    // 2024-06-12, 14:00 Berlin: the newest publication held is still 2024-04-03; April's later ones and May's were published but are not held.
    t = await createTestApp(
      { KEY_RATE_LIMIT: '100000' },
      { rates: tableRates(PUBLICATIONS), clock: () => new Date('2024-06-12T12:00:00Z') },
    );
    developer = await t.createKey('developer');
  });
  afterAll(() => t.close());

  it.each([
    ['2024-03-31', true],
    ['2024-04-03', true],
    ['2024-04-04', false],
    ['2024-05-31', false],
  ])(
    'up to %s (ended in the past) is complete: %s: a page that reaches past the newest publication held is still missing some',
    async (end, complete) => {
      const res = await t.call('GET', `/v1/currency/rates/series?start=2024-03-01&end=${end}&symbols=USD`, { key: developer });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ end, complete });
      expect(res.headers.get('cache-control')).toBe(complete ? 'private, max-age=86400' : 'no-store');
      expect(res.headers.get('etag') !== null).toBe(complete);
    },
  );
});
