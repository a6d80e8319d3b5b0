import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frontServer } from '../helpers/http';
import { SourceHistory } from '../../src/domain/sources/history';
import type { SourceFigure, SourceId, SourcePublication } from '../../src/domain/sources/types';
import { servedSources, type HeldSources } from '../../src/services/currency/held-sources';
import { createTestApp, type TestApp } from '../helpers/app';
import { tableRates } from '../helpers/table-rates';

// Made-up publications of the ECB and of three other sources: invented figures in the publishers' shapes.
const per = (value: string, units = '1'): SourceFigure => ({ value, units, direction: 'base-per-units' });
const pub = (source: SourceId, date: string, base: string, figures: Record<string, SourceFigure>, table = ''): SourcePublication => ({
  source,
  table,
  date,
  base,
  figures,
});
const ecb = [
  { date: '2026-03-04', rates: { USD: '1.1000', JPY: '160.00', PLN: '4.4000' } },
  { date: '2026-03-06', rates: { USD: '1.2000', JPY: '161.00', PLN: '4.5000' } },
];
const history = SourceHistory.from([
  pub('nbp', '2026-03-04', 'PLN', { USD: per('4.0000'), EUR: per('4.4000'), JPY: per('2.5000', '100') }, 'A'),
  pub('nbp', '2026-03-06', 'PLN', { USD: per('4.1000'), EUR: per('4.5000'), JPY: per('2.6000', '100') }, 'A'),
  pub('nbp', '2026-03-04', 'PLN', { KES: per('0.0320') }, 'B'),
  pub('nbu', '2026-03-06', 'UAH', { USD: per('40.00'), MDL: per('2.5000') }),
  pub('cnb', '2026-03-06', 'CZK', { JPY: per('15.000', '100'), USD: per('22.000') }),
]);
const held: HeldSources = { history: () => history, enabled: () => servedSources('all') };

let app: TestApp;
let key: string;

beforeAll(async () => {
  app = await createTestApp({}, { rates: tableRates(ecb), sources: held, clock: () => new Date('2026-03-06T18:00:00Z') });
  key = await app.createKey('developer');
});
afterAll(() => app.close());

const convert = (query: string) => app.call('POST', '/v1/currency/convert', { key, body: Object.fromEntries(new URLSearchParams(query)) });

describe('a conversion picks its figures by the contract order, never blending', () => {
  it('serves the ECB as before when it quotes both: no figures, no legs', async () => {
    const { status, body } = await convert('value=10&from=USD&to=JPY');
    expect(status).toBe(200);
    expect(body.data.rate).toEqual({
      date: '2026-03-06',
      source: 'ecb',
      value: '134.1666666666666666666666666666666666667',
      fixed: [],
      resolved: { requested: '2026-03-06', publication: '2026-03-06', carriedForward: false, reason: null, missingPublications: null },
    });
  });

  it('takes the one source that quotes both when the ECB does not, each figure as published', async () => {
    const { status, body } = await convert('value=100&from=KES&to=USD&date=2026-03-06');
    expect(status).toBe(200);
    // 100 KES × 0.0320 PLN ÷ 4.1000 PLN per USD.
    expect(body.data.result).toEqual({ value: '0.7804878048780487804878048780487804878049', unit: 'USD' });
    expect(body.data.rate.source).toBe('nbp');
    expect(body.data.rate.date).toBe('2026-03-04');
    expect(body.data.rate.resolved).toMatchObject({
      requested: '2026-03-06',
      publication: '2026-03-04',
      carriedForward: true,
      reason: 'weekly-table',
    });
    expect(body.data.rate.figures).toEqual([
      expect.objectContaining({
        source: 'nbp',
        table: 'B',
        date: '2026-03-04',
        currency: 'KES',
        value: '0.0320',
        units: '1',
        direction: 'base-per-units',
      }),
      expect.objectContaining({ source: 'nbp', table: 'A', date: '2026-03-06', currency: 'USD', value: '4.1000', units: '1' }),
    ]);
    expect(body.data.rate.legs).toBeUndefined();
  });

  it('joins two sources through a currency both quote, leg by leg', async () => {
    const { status, body } = await convert('value=1&from=KES&to=MDL&date=2026-03-06');
    expect(status).toBe(200);
    expect(body.data.rate.source).toBe('nbp; nbu');
    expect(body.data.rate.legs.map((leg: { source: string; from: string; to: string }) => [leg.source, leg.from, leg.to])).toEqual([
      ['nbp', 'KES', 'USD'],
      ['nbu', 'USD', 'MDL'],
    ]);
    // (0.0320 ÷ 4.1000) × (40.00 ÷ 2.5000), exactly.
    expect(body.data.result.value).toBe('0.1248780487804878048780487804878048780488');
  });

  it('uses the asked source only, reading units per 100', async () => {
    const { status, body } = await convert('value=1000&from=JPY&to=USD&source=cnb');
    expect(status).toBe(200);
    expect(body.data.rate.source).toBe('cnb');
    // 1000 JPY × 15.000 CZK per 100 JPY ÷ 22.000 CZK per USD.
    expect(body.data.result.value).toBe('6.818181818181818181818181818181818181818');
  });

  it('answers the same on GET /v1/convert, in the unit conversion shape', async () => {
    const { status, body } = await app.call('GET', '/v1/convert?value=1000&from=JPY&to=USD&source=cnb', { key });
    expect(status).toBe(200);
    expect(body.data.exchangeRate).toMatchObject({ source: 'cnb', rates: {}, value: '0.006818181818181818181818181818181818181818' });
  });
});

describe('unit expressions with currencies choose their figures as a conversion does', () => {
  const get = (query: string) => app.call('GET', `/v1/convert?${query}`, { key });

  it('stay on the ECB when it quotes every currency: its rates shown, no figures', async () => {
    const { status, body } = await get(`value=2&from=${encodeURIComponent('USD/kWh')}&to=${encodeURIComponent('JPY/MWh')}`);
    expect(status).toBe(200);
    expect(body.data.exchangeRate).toMatchObject({ source: 'ecb', rates: { USD: '1.2000', JPY: '161.00' } });
    expect(body.data.exchangeRate.figures).toBeUndefined();
    // 2 USD/kWh × (161.00 ÷ 1.2000) × 1000.
    expect(body.data.result.value).toBe('268333.3333333333333333333333333333333333');
  });

  it('take one source for a currency the ECB does not quote, each figure named', async () => {
    const { status, body } = await get(
      `value=1000&from=${encodeURIComponent('KES/kWh')}&to=${encodeURIComponent('USD/MWh')}&date=2026-03-06`,
    );
    expect(status).toBe(200);
    // 1000 × (0.0320 ÷ 4.1000) USD per kWh, × 1000 kWh per MWh.
    expect(body.data.result.value).toBe('7804.878048780487804878048780487804878049');
    expect(body.data.exchangeRate).toMatchObject({ source: 'nbp', rates: {}, value: '0.007804878048780487804878048780487804878049' });
    expect(body.data.exchangeRate.resolved).toMatchObject({ carriedForward: true, reason: 'weekly-table' });
    expect(body.data.exchangeRate.figures.map((f: { currency: string; table: string }) => [f.currency, f.table])).toEqual([
      ['KES', 'B'],
      ['USD', 'A'],
    ]);
  });

  it('join two sources leg by leg, and price three currencies against the first', async () => {
    const joined = await get(`value=1&from=${encodeURIComponent('KES/kg')}&to=${encodeURIComponent('MDL/kg')}&date=2026-03-06`);
    expect(joined.status).toBe(200);
    expect(joined.body.data.exchangeRate.source).toBe('nbp; nbu');
    expect(joined.body.data.result.value).toBe('0.1248780487804878048780487804878048780488');
    // KES per USD → MDL per USD: each currency priced against KES (KES→USD on nbp, KES→MDL joined), each step named once.
    const three = await get(`value=1&from=${encodeURIComponent('KES/USD')}&to=${encodeURIComponent('MDL/USD')}&date=2026-03-06`);
    expect(three.status).toBe(200);
    expect(three.body.data.result.value).toBe('0.1248780487804878048780487804878048780488');
    expect(
      three.body.data.exchangeRate.legs.map((leg: { source: string; from: string; to: string }) => [leg.source, leg.from, leg.to]),
    ).toEqual([
      ['nbp', 'KES', 'USD'],
      ['nbu', 'USD', 'MDL'],
    ]);
  });

  it('take the asked source only, and refuse a pair it does not quote naming those that do', async () => {
    const only = await get(`value=100&from=${encodeURIComponent('JPY/kWh')}&to=${encodeURIComponent('USD/kWh')}&source=cnb`);
    expect(only.status).toBe(200);
    expect(only.body.data.exchangeRate.source).toBe('cnb');
    expect(only.body.data.result.value).toBe('0.6818181818181818181818181818181818181818');
    const refused = await get(`value=1&from=${encodeURIComponent('KES/kWh')}&to=${encodeURIComponent('USD/kWh')}&source=cnb`);
    expect(refused.status).toBe(404);
    expect(refused.body.error).toMatchObject({ code: 'RATE_NOT_FOUND' });
    expect(refused.body.error.message).toContain('Sources that do: nbp.');
    const unknown = await get(`value=1&from=${encodeURIComponent('KES/kWh')}&to=${encodeURIComponent('USD/kWh')}&source=fed`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'INVALID_REQUEST', param: 'source' });
  });

  it('ignore the source where no currency occurs, as they ignore a date', async () => {
    const { status, body } = await get('value=1&from=km%2Fh&to=m%2Fs&source=nbu');
    expect(status).toBe(200);
    expect(body.data.result.value).toBe('0.2777777777777777777777777777777777777778');
  });
});

describe('refusals name the sources', () => {
  it('an unknown source is INVALID_REQUEST listing the sources', async () => {
    const { status, body } = await convert('value=1&from=USD&to=JPY&source=fed');
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: 'INVALID_REQUEST', param: 'source' });
    expect(body.error.message).toContain('ecb, boc, nb, cnb, nbp, boi, nbu, cbr, imf');
  });

  it('a pair the asked source does not quote is RATE_NOT_FOUND naming those that do', async () => {
    const { status, body } = await convert('value=1&from=KES&to=USD&source=cnb');
    expect(status).toBe(404);
    expect(body.error.code).toBe('RATE_NOT_FOUND');
    // One source: "its" publications, never "their".
    expect(body.error.message).toContain('cnb does not quote both KES and USD in its latest publications.');
    expect(body.error.message).toContain('Sources that do: nbp.');
  });

  it('the ECB asked for a pair it does not quote names the sources that do', async () => {
    const { status, body } = await convert('value=1&from=KES&to=USD&source=ecb');
    expect(status).toBe(404);
    expect(body.error.message).toContain('Sources that do: nbp.');
  });
});

describe('a source’s rates listed', () => {
  const rates = (query: string) => app.call('GET', `/v1/currency/rates?${query}`, { key });

  it('against its own base, each figure as published or exactly per one unit', async () => {
    const { status, body } = await rates('source=cnb&date=2026-03-06');
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ date: '2026-03-06', base: 'CZK', source: 'cnb' });
    // 100 JPY cost 15.000 CZK: one koruna buys 100 ÷ 15 yen.
    expect(body.data.rates).toEqual({
      CZK: '1',
      JPY: '6.666666666666666666666666666666666666667',
      USD: '0.04545454545454545454545454545454545454545',
    });
  });

  it('against any base it quotes, times an amount, tables of one base together', async () => {
    const { status, body } = await rates('source=nbp&date=2026-03-06&base=USD&symbols=KES,EUR&amount=2');
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ base: 'USD', source: 'nbp', amount: '2', date: '2026-03-06' });
    expect(body.data.rates).toEqual({ KES: '256.25', EUR: '1.822222222222222222222222222222222222222' });
    expect(body.data.resolved).toMatchObject({ publication: '2026-03-04', reason: 'weekly-table' });
  });

  it('a code the source does not quote is RATE_NOT_FOUND', async () => {
    const { status, body } = await rates('source=cnb&symbols=KES');
    expect(status).toBe(404);
    expect(body.error).toMatchObject({ code: 'RATE_NOT_FOUND', param: 'symbols' });
  });
});

describe('the MCP tools name the source', () => {
  it('convert and rates answer on a source other than the ECB, with its figures', async () => {
    const server = frontServer(app.app);
    const transport = new StreamableHTTPClientTransport(new URL(`${await server.origin()}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    });
    const client = new Client({ name: 'source-conversion-tests', version: '1.0.0' });
    try {
      await client.connect(transport);
      const converted = (await client.callTool({
        name: 'convert',
        arguments: { value: '100', from: 'KES', to: 'USD', date: '2026-03-06' },
      })) as CallToolResult;
      expect(converted.isError).toBeFalsy();
      expect(converted.structuredContent).toMatchObject({ result: { value: '0.7804878048780487804878048780487804878049', unit: 'USD' } });
      expect(JSON.stringify(converted.structuredContent)).toContain('"table":"B"');
      expect((converted.content[0] as { text: string }).text).toContain('the nbp publication of 2026-03-04');
      const listed = (await client.callTool({ name: 'rates', arguments: { source: 'cnb', date: '2026-03-06' } })) as CallToolResult;
      expect(listed.structuredContent).toMatchObject({ source: 'cnb', base: 'CZK', rates: { CZK: '1' } });
    } finally {
      await client.close();
      await server.close();
    }
  });
});
