import { join, resolve } from 'node:path';
import Decimal from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Publication } from '../../src/domain/ecb';
import type { RatesService } from '../../src/services/currency/rates';
import { tempRates, type TempRates } from '../data/rates/helpers';
import { parseCsv } from '../domain/currency/csv-reader';
import { createTestApp, type TestApp } from '../helpers/app';
import { sharedDataPresent } from '../helpers/shared-data';

// The real ECB files live beside the project (../shared/ecb); they are read, never copied in.
const DIR = resolve(process.cwd(), '../shared/ecb');
const PRESENT = sharedDataPresent(DIR);

const NOW = new Date('2026-07-07T10:00:00Z');
/** decimal.js at 200 digits: an arithmetic independent of the service's BigInt fractions. */
const D = Decimal.clone({ precision: 200, rounding: Decimal.ROUND_HALF_EVEN });

/** The mean of `values` printed by the contract's unrounded rule (40 significant digits, half-even). */
function oracleMean(values: Decimal[]): string {
  return values
    .reduce((sum, v) => sum.plus(v), new D(0))
    .div(values.length)
    .toSignificantDigits(40, D.ROUND_HALF_EVEN)
    .toFixed();
}

describe.skipIf(!PRESENT)('GET /v1/currency/rates/series on the whole real ECB history', () => {
  let t: TestApp;
  let temp: TempRates;
  let rates: RatesService;
  let key: string;
  let history: Publication[];

  beforeAll(async () => {
    temp = tempRates();
    rates = temp.service({ clock: () => NOW });
    await rates.importFile(join(DIR, 'eurofxref-hist.zip'));
    t = await createTestApp({ KEY_RATE_LIMIT: '1000000' }, { rates, clock: () => NOW });
    key = await t.createKey('developer');
    history = (await rates.loadPublications(rates.publicationDates!())).filter((p): p is Publication => p !== undefined);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await rates?.stop();
    temp?.cleanup();
  });

  const series = (query: string, accept?: string) =>
    t.call('GET', `/v1/currency/rates/series?${query}`, { key, headers: accept ? { accept } : {} });

  it.each([
    ['EUR', '1999-01', ['USD', 'JPY', 'GBP']],
    ['EUR', '2008-10', ['USD', 'JPY', 'ISK']],
    ['EUR', '2022-03', ['USD', 'RUB', 'CHF']],
    ['USD', '2015-01', ['JPY', 'CHF', 'EUR']],
    ['JPY', '2020-03', ['USD', 'GBP', 'EUR']],
  ])('base %s, %s: each monthly mean is the exact mean of that month’s publications', async (base, month, codes) => {
    const res = await series(`start=${month}-01&end=${month}-28&group=month&base=${base}&symbols=${codes.join(',')}`);
    // The range ends on the 28th: the period covers the month's publications up to it.
    const pubs = history.filter((p) => p.date >= `${month}-01` && p.date <= `${month}-28`);
    expect(res.status).toBe(200);
    const [entry, ...rest] = res.body.data.entries;
    expect(rest).toEqual([]);
    expect(entry).toMatchObject({ period: month, start: pubs[0]!.date, end: pubs.at(-1)!.date, publications: pubs.length });
    const rateOf = (pub: Publication, code: string) => (code === 'EUR' ? new D(1) : new D(pub.rates[code]!));
    for (const code of codes) {
      const quoting = pubs.filter(
        (p) => (code === 'EUR' || p.rates[code] !== undefined) && (base === 'EUR' || p.rates[base] !== undefined),
      );
      expect(entry.rates[code], `${month} ${code}/${base}`).toBe(oracleMean(quoting.map((p) => rateOf(p, code).div(rateOf(p, base)))));
    }
    // RUB was suspended after 2022-03-01: averaged over the one publication that quoted it.
    if (month === '2022-03') expect(entry.partial).toEqual([{ code: 'RUB', publications: 1 }]);
    else expect(entry.partial).toEqual([]);
  });

  it('exports ten years of USD and JPY as CSV a spreadsheet opens: a header, one row per publication, decimal strings, CRLF', async () => {
    const res = await series('start=2014-01-01&end=2023-12-31&symbols=USD,JPY', 'text/csv');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    // Ten years fit in one call; the range ended long ago, so the answer is complete and cacheable.
    expect(res.headers.get('link')).toBeNull();
    expect(res.headers.get('cache-control')).toBe('private, max-age=86400');
    expect(res.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(res.text.replaceAll('\r\n', '')).not.toMatch(/[\r\n]/);
    const rows = parseCsv(res.text);
    expect(rows[0]).toEqual(['date', 'base', 'USD', 'JPY']);
    const pubs = history.filter((p) => p.date >= '2014-01-01' && p.date <= '2023-12-31');
    expect(pubs.length).toBeGreaterThan(2500);
    expect(rows.slice(1)).toEqual(pubs.map((p) => [p.date, 'EUR', p.rates['USD'], p.rates['JPY']]));
    // Decimal strings exactly as published ("140" when the ECB wrote no decimals), never exponents or floats' noise.
    for (const row of rows.slice(1)) for (const cell of row.slice(2)) expect(cell).toMatch(/^\d+(\.\d+)?$/);
    // The same rows as the JSON answer, and as NDJSON.
    const json = await series('start=2014-01-01&end=2023-12-31&symbols=USD,JPY');
    expect(
      json.body.data.entries.map((e: { start: string; rates: Record<string, string> }) => [e.start, 'EUR', e.rates['USD'], e.rates['JPY']]),
    ).toEqual(rows.slice(1));
    const ndjson = await series('start=2014-01-01&end=2023-12-31&symbols=USD,JPY', 'application/x-ndjson');
    expect(ndjson.text.trimEnd().split('\n')).toHaveLength(pubs.length);
  }, 60_000);

  it('continues past ten years with the cursor for months, each page cut at a period boundary; yearly means are one page', async () => {
    const first = await series('start=1999-01-01&end=2026-06-30&group=month&symbols=USD');
    expect(first.body.data).toMatchObject({ start: '1999-01-04', end: '2008-12-31' });
    const second = await series(`start=1999-01-01&end=2026-06-30&group=month&symbols=USD&cursor=${first.body.data.nextCursor}`);
    expect(second.body.data).toMatchObject({ start: '2009-01-01', end: '2018-12-31' });
    const third = await series(`start=1999-01-01&end=2026-06-30&group=month&symbols=USD&cursor=${second.body.data.nextCursor}`);
    expect(third.body.data).toMatchObject({ start: '2019-01-01', end: '2026-06-30', nextCursor: null });
    const months = [first, second, third].flatMap((page) => page.body.data.entries.map((e: { period: string }) => e.period));
    expect(months).toHaveLength(12 * 27 + 4);
    const years = await series('start=1999-01-01&end=2026-06-30&group=year&symbols=USD');
    expect(years.body.data).toMatchObject({ start: '1999-01-04', end: '2026-06-30', nextCursor: null });
    expect(years.body.data.entries.map((e: { period: string }) => e.period)).toEqual(
      Array.from({ length: 28 }, (_, i) => String(1999 + i)),
    );
  }, 60_000);
});
