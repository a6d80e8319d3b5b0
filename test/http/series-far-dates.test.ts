import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { encodeCursor } from '../../src/domain/currency/series-pages';
import { createTestApp, type TestApp } from '../helpers/app';
import { tableRates } from '../helpers/table-rates';

/** Made-up publications in the ECB's form (not ECB data). */
const PUBLICATIONS = [
  { date: '2024-03-27', rates: { USD: '1.0830' } },
  { date: '2024-03-28', rates: { USD: '1.0811' } },
];
const AFTER_TODAY = /^There are no rates from 9999-12-3[01] yet: it is after today \(2024-04-04, Europe\/Berlin\)\.$/;

for (const execution of ['direct', 'sofa'] as const) {
  describe(`series at the far ends of the calendar, REST_EXECUTION=${execution}`, () => {
    let t: TestApp;
    let key: string;
    beforeAll(async () => {
      t = await createTestApp(
        { REST_EXECUTION: execution, KEY_RATE_LIMIT: '100000' },
        { rates: tableRates(PUBLICATIONS), clock: () => new Date('2024-04-04T12:00:00Z') },
      );
      key = await t.createKey('developer');
    });
    afterAll(() => t.close());

    it.each([
      ['start=9999-12-31', 'application/json'],
      ['start=9999-12-31', 'text/csv'],
      ['start=9999-12-30&end=9999-12-31', 'application/json'],
      ['start=9999-12-31&group=week', 'application/json'],
      ['start=9999-12-31&group=month', 'application/x-ndjson'],
      ['start=9999-12-31&group=year', 'application/json'],
    ])(
      '?%s as %s: 404 RATE_NOT_FOUND saying the start is after today, as the contract answers a day after today',
      async (query, accept) => {
        const res = await t.call('GET', `/v1/currency/rates/series?${query}&symbols=USD`, { key, headers: { accept } });
        expect(res.status).toBe(404);
        expect(res.body.error).toMatchObject({ code: 'RATE_NOT_FOUND', param: 'start', message: expect.stringMatching(AFTER_TODAY) });
      },
    );

    it.each([
      ['start=10000-01-01', 'start'],
      ['start=2024-01-01&end=10000-01-01', 'end'],
      ['start=+2024-01-01', 'start'],
    ])('?%s: 400 INVALID_REQUEST, a date has four year digits', async (query, param) => {
      const res = await t.call('GET', `/v1/currency/rates/series?${query}`, { key });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'INVALID_REQUEST', param });
    });

    it.each([
      ['start=0000-01-01', 200],
      ['start=0000-01-01&end=2024-12-31', 200],
      ['start=2024-03-01&end=9999-12-31', 200],
      ['start=2024-03-01&end=9999-12-31&group=week', 200],
      ['start=0000-01-01&end=0000-12-31', 404],
    ])('?%s answers %i, clipped to the publications held', async (query, status) => {
      const res = await t.call('GET', `/v1/currency/rates/series?${query}&symbols=USD`, { key });
      expect(res.status).toBe(status);
      if (status === 200) expect(res.body.data.start).toBe('2024-03-27');
    });

    it('answers a hand-made cursor near 9999-12-31 as any page after today, never 500', async () => {
      const range = { start: '2024-03-01', end: '9999-12-31', group: 'month' as const, base: 'EUR', symbols: ['USD'] };
      const cursor = encodeCursor(range, '9995-01-01');
      const res = await t.call(
        'GET',
        `/v1/currency/rates/series?start=2024-03-01&end=9999-12-31&group=month&symbols=USD&cursor=${cursor}`,
        { key },
      );
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('RATE_NOT_FOUND');
    });
  });
}

describe('series after today through GraphQL and MCP', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp(
      { KEY_RATE_LIMIT: '100000' },
      { rates: tableRates(PUBLICATIONS), clock: () => new Date('2024-04-04T12:00:00Z') },
    );
    key = await t.createKey('developer');
  });
  afterAll(() => t.close());

  it('GraphQL rateSeries(start: "9999-12-31") is RATE_NOT_FOUND (404) on its field', async () => {
    const { body } = await t.graphql('{ rateSeries(start: "9999-12-31", symbols: ["USD"]) { start } }', {}, key);
    expect(body.data.rateSeries).toBeNull();
    expect(body.errors).toMatchObject([
      { path: ['rateSeries'], message: expect.stringMatching(AFTER_TODAY), extensions: { code: 'RATE_NOT_FOUND', status: 404 } },
    ]);
  });

  it('MCP rate_series_summary from 9999-12-31 is a tool error RATE_NOT_FOUND', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${t.origin}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    });
    const client = new Client({ name: 'measurement-api-tests', version: '1.0.0' });
    await client.connect(transport);
    try {
      const result = (await client.callTool({
        name: 'rate_series_summary',
        arguments: { start: '9999-12-31', symbols: 'USD' },
      })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect((result.structuredContent as { error: unknown }).error).toMatchObject({
        code: 'RATE_NOT_FOUND',
        message: expect.stringMatching(AFTER_TODAY),
      });
    } finally {
      await client.close();
    }
  });
});
