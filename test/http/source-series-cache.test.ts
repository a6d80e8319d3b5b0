import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SourceHistory } from '../../src/domain/sources/history';
import type { SourceFigure, SourcePublication } from '../../src/domain/sources/types';
import { servedSources, type HeldSources } from '../../src/services/currency/held-sources';
import { createTestApp, type TestApp } from '../helpers/app';
import { tableRates } from '../helpers/table-rates';

// Made-up publications (invented figures in the publishers' shapes): never any publisher's real values.
const per = (value: string): SourceFigure => ({ value, units: '1', direction: 'base-per-units' });
const nbp = (date: string, usd: string): SourcePublication => ({
  source: 'nbp',
  table: 'A',
  date,
  base: 'PLN',
  figures: { USD: per(usd), EUR: per('4.4000') },
});
const nbu = (date: string): SourcePublication => ({ source: 'nbu', table: '', date, base: 'UAH', figures: { USD: per('40.00') } });
const ecb = [{ date: '2026-03-02', rates: { USD: '1.1000', PLN: '4.4000' } }];
/** A page of CNB's larger than 10,000 rates (100 days × 120 currencies), so that computing it costs more than its admission. */
const CODES = Intl.supportedValuesOf('currency')
  .filter((code) => code !== 'CZK')
  .slice(0, 120);
const cnb = Array.from(
  { length: 100 },
  (_, i): SourcePublication => ({
    source: 'cnb',
    table: '',
    date: new Date(Date.UTC(2025, 10, 1 + i)).toISOString().slice(0, 10),
    base: 'CZK',
    figures: Object.fromEntries(CODES.map((code) => [code, per('2.000')])),
  }),
);

/** What the instance holds now; a test replaces it as an import would. */
let history = SourceHistory.from([nbp('2026-03-02', '4.0000'), nbp('2026-03-03', '4.0500'), nbu('2026-03-02'), ...cnb]);
const held: HeldSources = { history: () => history, enabled: () => servedSources('all') };

let app: TestApp;
let key: string;

beforeAll(async () => {
  app = await createTestApp({}, { rates: tableRates(ecb), sources: held, clock: () => new Date('2026-03-12T18:00:00Z') });
  key = await app.createKey('developer');
});
afterAll(() => app.close());

/** The series pages counted in the app's metrics: computed, and answered from the export cache. */
async function exportCounts(): Promise<{ computed: number; cache: number }> {
  const text = await app.app.metrics.render();
  const count = (source: string) =>
    Number(new RegExp(`^measurement_series_exports_total\\{source="${source}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  return { computed: count('computed'), cache: count('cache') };
}

const get = (query: string, accept = 'application/json') =>
  app.call('GET', `/v1/currency/rates/series?${query}`, { key, headers: { accept } });

describe("a source's series pages are kept in the export cache, keyed by the source and its publications", () => {
  it('answers the second identical page from the cache, the same bytes, in JSON and CSV; another source or query is its own page', async () => {
    const query = 'start=2026-03-01&end=2026-03-10&source=nbp';
    const before = await exportCounts();
    const first = await get(query);
    const second = await get(query);
    expect(first.status).toBe(200);
    expect(second.text).toBe(first.text);
    expect(second.body.data).toMatchObject({ source: 'nbp', complete: false });
    // Not complete: no client keeps it, the server does.
    expect(second.headers.get('cache-control')).toBe('no-store');
    expect(await exportCounts()).toEqual({ computed: before.computed + 1, cache: before.cache + 1 });
    const csv = [await get(query, 'text/csv'), await get(query, 'text/csv')];
    expect(csv[1]!.text).toBe(csv[0]!.text);
    expect(await exportCounts()).toEqual({ computed: before.computed + 2, cache: before.cache + 2 });
    // The same range of another source, and another query of the same source, are computed.
    await get('start=2026-03-01&end=2026-03-10&source=nbu');
    await get(`${query}&symbols=USD`);
    expect(await exportCounts()).toEqual({ computed: before.computed + 4, cache: before.cache + 2 });
  });

  it('computes a page afresh once the publications change (a correction of a day held), then keeps the new one', async () => {
    const query = 'start=2026-03-01&end=2026-03-05&source=nbp&symbols=USD';
    const old = await get(query);
    const before = await exportCounts();
    history = history.merge([nbp('2026-03-03', '4.1000')]);
    const corrected = await get(query);
    expect(corrected.body.data.entries[1].rates.USD).not.toBe(old.body.data.entries[1].rates.USD);
    expect((await get(query)).text).toBe(corrected.text);
    expect(await exportCounts()).toEqual({ computed: before.computed + 1, cache: before.cache + 1 });
  });

  it("GraphQL's rateSeries of a source is computed once, then served from the cache for its admission alone", async () => {
    const query = '{ rateSeries(start: "2025-11-01", end: "2026-02-08", source: cnb) { source entries { period rates } } }';
    const first = await app.graphql(query, {}, key);
    const second = await app.graphql(query, {}, key);
    expect(first.body.data.rateSeries.entries).toHaveLength(100);
    expect(second.body.data).toEqual(first.body.data);
    // 12,000 rates cost two requests when computed; the kept page only the one its admission spent.
    expect([first.body.extensions.cost.requests, second.body.extensions.cost.requests]).toEqual([2, 1]);
  });
});
