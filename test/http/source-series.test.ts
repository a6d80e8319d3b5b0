import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SourceHistory } from '../../src/domain/sources/history';
import type { SourceFigure, SourceId, SourcePublication } from '../../src/domain/sources/types';
import { servedSources, type HeldSources } from '../../src/services/currency/held-sources';
import { createTestApp, type TestApp } from '../helpers/app';
import { frontServer } from '../helpers/http';
import { tableRates } from '../helpers/table-rates';

// Made-up publications (invented figures in the publishers' shapes): never any publisher's real values.
const per = (value: string, units = '1'): SourceFigure => ({ value, units, direction: 'base-per-units' });
const inBase = (value: string): SourceFigure => ({ value, units: '1', direction: 'units-per-base' });
const pub = (source: SourceId, date: string, base: string, figures: Record<string, SourceFigure>, table = ''): SourcePublication => ({
  source,
  table,
  date,
  base,
  figures,
});
const ecb = [
  { date: '2026-03-02', rates: { USD: '1.1000', JPY: '160.00', PLN: '4.4000' } },
  { date: '2026-03-03', rates: { USD: '1.1100', JPY: '161.00', PLN: '4.4500' } },
];
const history = SourceHistory.from([
  pub('nbp', '2026-03-02', 'PLN', { USD: per('4.0000'), EUR: per('4.4000'), JPY: per('2.5000', '100') }, 'A'),
  pub('nbp', '2026-03-03', 'PLN', { USD: per('4.0500'), EUR: per('4.4500'), JPY: per('2.5500', '100') }, 'A'),
  pub('nbp', '2026-03-09', 'PLN', { USD: per('4.2000'), EUR: per('4.5000'), JPY: per('2.6000', '100') }, 'A'),
  pub('nbp', '2026-03-04', 'PLN', { KES: per('0.0320') }, 'B'),
  pub('nbp', '2026-03-11', 'PLN', { KES: per('0.0300') }, 'B'),
  pub('nbu', '2026-03-03', 'UAH', { USD: per('40.00'), MDL: per('2.5000') }),
  pub('imf', '2026-03-03', 'USD', { JPY: inBase('150.250'), CHF: inBase('0.8000') }, 'representative'),
]);
const held: HeldSources = { history: () => history, enabled: () => servedSources('all') };
const SECRET = randomBytes(32).toString('base64');

let app: TestApp;
let key: string;

beforeAll(async () => {
  app = await createTestApp(
    { WEBHOOK_SECRET_KEY: SECRET },
    { rates: tableRates(ecb), sources: held, clock: () => new Date('2026-03-12T18:00:00Z') },
  );
  key = await app.createKey('developer');
});
afterAll(() => app.close());

const SERIES = '/v1/currency/rates/series';
const get = (query: string, accept = 'application/json') => app.call('GET', `${SERIES}?${query}`, { key, headers: { accept } });

describe('a series of a source other than the ECB', () => {
  it("lists that source's days against its own base, each rate the exact quotient of its figures", async () => {
    const { status, body } = await get('start=2026-03-01&end=2026-03-10&symbols=USD,EUR&source=nbp');
    expect(status).toBe(200);
    // Clipped to the first day held, as the ECB's series is.
    expect(body.data).toMatchObject({ source: 'nbp', base: 'PLN', start: '2026-03-02', end: '2026-03-10', complete: false });
    expect(body.data.symbols).toEqual(['USD', 'EUR']);
    expect(body.data.entries.map((e: { period: string; rates: object }) => [e.period, e.rates])).toEqual([
      ['2026-03-02', { USD: '0.25', EUR: '0.2272727272727272727272727272727272727273' }],
      ['2026-03-03', { USD: '0.2469135802469135802469135802469135802469', EUR: '0.2247191011235955056179775280898876404494' }],
      ['2026-03-09', { USD: '0.2380952380952380952380952380952380952381', EUR: '0.2222222222222222222222222222222222222222' }],
    ]);
    expect(body.data.change[0]).toMatchObject({ code: 'USD', start: '2026-03-02', startRate: '0.25', end: '2026-03-09' });
  });

  it('prints a figure as published against its own base when it is units per one unit of that base', async () => {
    const { body } = await get('start=2026-03-01&end=2026-03-10&source=imf');
    expect(body.data).toMatchObject({ source: 'imf', base: 'USD', symbols: ['JPY', 'CHF'] });
    expect(body.data.entries[0].rates).toEqual({ JPY: '150.250', CHF: '0.8000' });
    const rounded = await get('start=2026-03-01&end=2026-03-10&source=imf&decimals=1');
    expect(rounded.body.data.entries[0].rates).toEqual({ JPY: '150.3', CHF: '0.8' });
  });

  it('takes a base other than the source’s own, and a weekly table’s days are the days it published', async () => {
    const { body } = await get('start=2026-03-01&end=2026-03-10&symbols=EUR,JPY&base=USD&source=nbp');
    expect(body.data.base).toBe('USD');
    expect(body.data.entries.map((e: { rates: object }) => e.rates)).toEqual([
      { EUR: '0.9090909090909090909090909090909090909091', JPY: '160' },
      { EUR: '0.9101123595505617977528089887640449438202', JPY: '158.8235294117647058823529411764705882353' },
      { EUR: '0.9333333333333333333333333333333333333333', JPY: '161.5384615384615384615384615384615384615' },
    ]);
    const weekly = await get('start=2026-03-01&end=2026-03-12&symbols=KES&source=nbp');
    expect(weekly.body.data.entries.map((e: { period: string; rates: object }) => [e.period, e.rates])).toEqual([
      ['2026-03-04', { KES: '31.25' }],
      ['2026-03-11', { KES: '33.33333333333333333333333333333333333333' }],
    ]);
  });

  it("means a month exactly, with the period's figures and change", async () => {
    const { status, body } = await get('start=2026-03-01&end=2026-03-31&symbols=JPY&base=USD&group=month&source=nbp');
    expect(status).toBe(200);
    const [march] = body.data.entries;
    expect(march).toMatchObject({ period: '2026-03', start: '2026-03-02', end: '2026-03-09', publications: 3 });
    expect(march.rates).toEqual({ JPY: '160.1206636500754147812971342383107088989' });
    expect(march.figures).toEqual([
      {
        code: 'JPY',
        first: '160',
        last: '161.5384615384615384615384615384615384615',
        min: '158.8235294117647058823529411764705882353',
        max: '161.5384615384615384615384615384615384615',
        change: '1.538461538461538461538461538461538461538',
        changePercent: '0.9615384615384615384615384615384615384615',
      },
    ]);
  });

  it('writes the same rows as CSV and NDJSON', async () => {
    const query = 'start=2026-03-01&end=2026-03-10&symbols=USD,EUR&base=USD&source=nbp';
    const csv = await get(query, 'text/csv');
    expect(csv.status).toBe(200);
    expect(csv.text).toBe(
      'date,base,USD,EUR\r\n' +
        '2026-03-02,USD,1,0.9090909090909090909090909090909090909091\r\n' +
        '2026-03-03,USD,1,0.9101123595505617977528089887640449438202\r\n' +
        '2026-03-09,USD,1,0.9333333333333333333333333333333333333333\r\n',
    );
    const ndjson = await get(query, 'application/x-ndjson');
    expect(ndjson.status).toBe(200);
    const lines = ndjson.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(3);
    expect(JSON.stringify(lines[2])).toContain('0.9333333333333333333333333333333333333333');
  });

  it('refuses a currency the source does not quote in the range with 404, naming the sources that do', async () => {
    const { status, body } = await get('start=2026-03-01&end=2026-03-10&symbols=MDL&source=nbp');
    expect(status).toBe(404);
    expect(body.error.code).toBe('RATE_NOT_FOUND');
    expect(body.error.message).toBe(
      'nbp does not quote MDL against PLN from 2026-03-02 to 2026-03-10. Sources that quote MDL then: nbu. See GET /v1/sources.',
    );
  });

  it('refuses an unknown source with 400 listing the sources', async () => {
    const { status, body } = await get('start=2026-03-01&end=2026-03-10&source=xyz');
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: 'INVALID_REQUEST', param: 'source' });
    expect(body.error.message).toContain('nbp');
  });

  it('keeps the ECB series as it was without source and with source=ecb', async () => {
    const plain = await get('start=2026-03-01&end=2026-03-10&symbols=USD');
    const named = await get('start=2026-03-01&end=2026-03-10&symbols=USD&source=ecb');
    expect(plain.body.data).toMatchObject({ source: 'ecb', base: 'EUR' });
    expect(plain.body.data.entries[0].rates).toEqual({ USD: '1.1000' });
    expect(named.text).toBe(plain.text);
  });

  it('serves the same rows through a signed link, which carries the source', async () => {
    const made = await app.call('POST', `${SERIES}/links`, {
      key,
      body: { start: '2026-03-01', end: '2026-03-10', symbols: ['USD', 'EUR'], source: 'nbp', format: 'csv' },
    });
    expect(made.status, made.text).toBe(200);
    expect(made.body.data.url).toContain('source=nbp');
    const linked = await app.call('GET', made.body.data.url);
    const keyed = await get('start=2026-03-01&end=2026-03-10&symbols=USD,EUR&source=nbp', 'text/csv');
    expect(linked.status).toBe(200);
    expect(linked.text).toBe(keyed.text);
    expect(linked.text).toContain('2026-03-02,PLN,0.25,');
  });

  it('answers GraphQL rateSeries(source:) alike', async () => {
    const { body } = await app.graphql(
      '{ rateSeries(start: "2026-03-01", end: "2026-03-10", symbols: ["USD"], source: nbp) { source base entries { period rates } } }',
      undefined,
      key,
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.rateSeries).toEqual({
      source: 'nbp',
      base: 'PLN',
      entries: [
        { period: '2026-03-02', rates: { USD: '0.25' } },
        { period: '2026-03-03', rates: { USD: '0.2469135802469135802469135802469135802469' } },
        { period: '2026-03-09', rates: { USD: '0.2380952380952380952380952380952380952381' } },
      ],
    });
  });
});

describe('the MCP tool rate_series_summary', () => {
  it("summarises a source's series with source", async () => {
    const server = frontServer(app.app);
    const transport = new StreamableHTTPClientTransport(new URL(`${await server.origin()}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    });
    const client = new Client({ name: 'source-series-tests', version: '1.0.0' });
    try {
      await client.connect(transport);
      const result = (await client.callTool({
        name: 'rate_series_summary',
        arguments: { start: '2026-03-01', end: '2026-03-31', symbols: 'JPY', base: 'USD', source: 'nbp' },
      })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({
        source: 'nbp',
        base: 'USD',
        entries: [{ period: '2026-03', publications: 3, rates: { JPY: '160.1206636500754147812971342383107088989' } }],
      });
    } finally {
      await client.close();
      await server.close();
    }
  });
});
