import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Publication } from '../../src/domain/ecb';
import { createTestApp, type TestApp } from '../helpers/app';
import { MADE_UP_PUBLICATIONS, revisableRates, tableRates } from '../helpers/table-rates';

/**
 * The currencies registry, any base, amounts and dates explained, through the real server under both
 * REST executions (direct, and SOFA through Yoga). Every answer is also checked against /openapi.json by
 * `call`. The GraphQL twins must give the same data and the same codes for the same input.
 */

/** Made-up publications (not real ECB data) around a euro changeover: HRK quoted, then not. */
const CHANGEOVER: Publication[] = [
  { date: '2022-12-29', rates: { USD: '1.0649', HRK: '7.5360', JPY: '140.66' } },
  { date: '2022-12-30', rates: { USD: '1.0666', HRK: '7.5365', JPY: '140.66' } },
  { date: '2023-01-02', rates: { USD: '1.0683', JPY: '139.91' } },
];

const RATES_SELECTION =
  '{ date base source amount rates resolved { requested publication carriedForward reason missingPublications } nextPublication { date expectedAt overdue missingPublications } }';
const CURRENCY_SELECTION =
  '{ code name localName { text language localized } numericCode minorUnits firstDate lastDate status sources { source first last } successor { code successor rate since kind source } }';

describe.each(['direct', 'sofa'])('REST_EXECUTION=%s', (execution) => {
  let t: TestApp;
  let free: string;
  let developer: string;
  beforeAll(async () => {
    // 2024-04-03 14:00 Berlin: the newest publication held is 2024-04-02, the next one is due at 16:00.
    t = await createTestApp(
      { REST_EXECUTION: execution },
      { rates: tableRates(MADE_UP_PUBLICATIONS), clock: () => new Date('2024-04-03T12:00:00Z') },
    );
    free = await t.createKey('free');
    developer = await t.createKey('developer');
  });
  afterAll(() => t.close());

  /** The GraphQL twin of a REST call: its field's data, or its first error's code and status. */
  const twin = async (document: string, variables: Record<string, unknown>, key?: string) => {
    const { body } = await t.graphql(document, variables, key);
    const field = Object.keys(body.data ?? {})[0]!;
    return body.errors
      ? { error: { code: body.errors[0].extensions.code, status: body.errors[0].extensions.status } }
      : { data: body.data[field] };
  };
  const restOutcome = (res: { status: number; body: any }) =>
    res.status === 200 ? { data: res.body.data } : { error: { code: res.body.error.code, status: res.body.error.status } };

  describe('GET /v1/currencies', () => {
    it('lists every currency the ECB has quoted, EUR first, public and cacheable with a strong ETag', async () => {
      const res = await t.call('GET', '/v1/currencies');
      expect(res.status).toBe(200);
      const codes = res.body.data.map((c: { code: string }) => c.code);
      expect(codes[0]).toBe('EUR');
      expect(codes.slice(1)).toEqual([...codes.slice(1)].sort());
      expect(codes).toEqual(expect.arrayContaining(['USD', 'JPY', 'GBP', 'RUB', 'HRK', 'ROL', 'TRL']));
      expect(res.body.data[0]).toMatchObject({
        code: 'EUR',
        name: 'Euro',
        numericCode: '978',
        minorUnits: 2,
        firstDate: '2024-03-27',
        lastDate: '2024-04-02',
        status: 'active',
        successor: null,
      });
      // Dates come from the stored history (here made up): GBP last quoted on 2024-03-28.
      expect(res.body.data.find((c: { code: string }) => c.code === 'GBP')).toMatchObject({
        firstDate: '2024-03-27',
        lastDate: '2024-03-28',
        status: 'retired',
      });
      expect(res.headers.get('cache-control')).toBe('public, max-age=1800');
      // A public route: any origin may read it.
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      const etag = res.headers.get('etag')!;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
      const again = await t.call('GET', '/v1/currencies', { headers: { 'if-none-match': etag } });
      expect(again.status).toBe(304);
      expect(again.headers.get('etag')).toBe(etag);
    });

    it('needs no key, takes only name and lang, and is the GraphQL field currencies', async () => {
      expect((await t.call('GET', '/v1/currencies?base=USD')).body.error).toMatchObject({ code: 'INVALID_REQUEST', param: 'base' });
      const rest = await t.call('GET', '/v1/currencies');
      expect(await twin(`{ currencies ${CURRENCY_SELECTION} }`, {})).toEqual(restOutcome(rest));
    });
  });

  describe('GET /v1/currencies/:code', () => {
    it('gives one currency, case-insensitive, with the fixed rate of a currency the euro replaced', async () => {
      const res = await t.call('GET', '/v1/currencies/hrk');
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        code: 'HRK',
        name: 'Croatian Kuna',
        numericCode: '191',
        firstDate: null,
        lastDate: null,
        status: 'retired',
        successor: { successor: 'EUR', rate: '7.53450', since: '2023-01-01', kind: 'euro' },
      });
      expect(res.body.data.successor.source).toMatch(/2866\/98/);
      expect((await t.call('GET', '/v1/currencies/ROL')).body.data.successor).toMatchObject({
        successor: 'RON',
        rate: '10000',
        kind: 'redenomination',
      });
      expect(res.headers.get('etag')).toMatch(/^"/);
    });

    it.each([
      ['XYZ', 404, 'NOT_FOUND'],
      ['dollars', 400, 'INVALID_REQUEST'],
      ['US', 400, 'INVALID_REQUEST'],
      ['%C3%A9ur', 400, 'INVALID_REQUEST'],
    ])('answers %s with %i %s, as its GraphQL twin does', async (code, status, errorCode) => {
      const res = await t.call('GET', `/v1/currencies/${code}`);
      expect(res.status).toBe(status);
      expect(res.body.error).toMatchObject({ code: errorCode, param: 'code' });
      expect(
        await twin(`query ($code: String!) { currency(code: $code) ${CURRENCY_SELECTION} }`, { code: decodeURIComponent(code) }),
      ).toEqual(restOutcome(res));
    });

    it('is the GraphQL field currency(code:)', async () => {
      const rest = await t.call('GET', '/v1/currencies/usd');
      expect(await twin(`{ currency(code: "usd") ${CURRENCY_SELECTION} }`, {})).toEqual(restOutcome(rest));
    });
  });

  describe('GET /v1/currency/rates with base, amount, decimals and rounding', () => {
    const rates = (query: string, key = free) => t.call('GET', `/v1/currency/rates${query}`, { key });

    it('keeps the published strings for EUR, trailing zeros and all, and explains the date', async () => {
      const res = await rates('?date=2024-03-30&symbols=GBP,usd', developer);
      expect(res.body.data).toEqual({
        date: '2024-03-28',
        base: 'EUR',
        source: 'ecb',
        amount: null,
        rates: { GBP: '0.85550', USD: '1.0811' },
        resolved: {
          requested: '2024-03-30',
          publication: '2024-03-28',
          carriedForward: true,
          reason: 'weekend',
          missingPublications: null,
        },
        nextPublication: null,
      });
    });

    it('gives exact cross rates against any base, the base itself "1"', async () => {
      const res = await rates('?base=usd');
      expect(res.status).toBe(200);
      // 163.02 / 1.0764 and 1 / 1.0764, by the unrounded rule (40 significant digits, half-even).
      expect(res.body.data).toMatchObject({
        date: '2024-04-02',
        base: 'USD',
        amount: null,
        rates: { USD: '1', EUR: '0.9290226681531029357116313638052768487551', JPY: '151.4492753623188405797101449275362318841' },
      });
      expect(Object.keys(res.body.data.rates)).toEqual(['USD', 'EUR', 'JPY']);
    });

    it('multiplies every rate by the amount and rounds once per entry', async () => {
      const res = await rates('?base=USD&symbols=JPY,%20eur,USD&amount=100&decimals=2');
      expect(res.body.data).toMatchObject({ base: 'USD', amount: '100', rates: { JPY: '15144.93', EUR: '92.90', USD: '100.00' } });
      const down = await rates('?base=USD&symbols=JPY&amount=100&decimals=2&rounding=DOWN');
      expect(down.body.data.rates).toEqual({ JPY: '15144.92' });
      // The amount alone: exact, the published EUR strings no longer served as they are.
      expect((await rates('?symbols=GBP,JPY&amount=2&date=2024-03-28', developer)).body.data.rates).toEqual({ GBP: '1.711', JPY: '326.9' });
    });

    it('explains the latest listing: today, the publication used and the next one expected', async () => {
      const res = await rates('?symbols=USD');
      expect(res.body.data.resolved).toEqual({
        requested: '2024-04-03',
        publication: '2024-04-02',
        carriedForward: true,
        reason: 'not-yet-published',
        missingPublications: null,
      });
      expect(res.body.data.nextPublication).toEqual({
        date: '2024-04-03',
        expectedAt: '2024-04-03T14:00:00.000Z',
        overdue: false,
        missingPublications: 0,
      });
    });

    it.each([
      ['?base=dollars', 400, 'INVALID_REQUEST', 'base'],
      ['?base=XYZ', 400, 'UNKNOWN_CURRENCY', 'base'],
      ['?base=GBP', 404, 'RATE_NOT_FOUND', 'base'],
      ['?symbols=USD,,JPY', 400, 'INVALID_REQUEST', 'symbols'],
      ['?symbols=USD,XYZ', 400, 'UNKNOWN_CURRENCY', 'symbols'],
      [`?symbols=${'USD,'.repeat(100)}JPY`, 400, 'INVALID_REQUEST', 'symbols'],
      ['?amount=1e3', 400, 'INVALID_REQUEST', 'amount'],
      ['?amount=%2B1', 400, 'INVALID_REQUEST', 'amount'],
      ['?decimals=41', 400, 'INVALID_REQUEST', 'decimals'],
      ['?rounding=SIDEWAYS', 400, 'INVALID_REQUEST', 'rounding'],
      ['?base=USD&date=2024-03-28', 403, 'PLAN_REQUIRED', 'date'],
    ])('answers %s with %i %s (param %s), as its GraphQL twin does', async (query, status, code, param) => {
      const res = await rates(query);
      expect(res.status).toBe(status);
      expect(res.body.error).toMatchObject({ code, param });
      const variables: Record<string, unknown> = {};
      for (const [name, value] of new URLSearchParams(query))
        variables[name] = name === 'symbols' ? value.split(',') : name === 'decimals' ? Number(value) : value;
      const document = `query ($date: Date, $symbols: [String!], $base: String, $amount: Decimal, $decimals: Int, $rounding: Rounding) {
        rates(date: $date, symbols: $symbols, base: $base, amount: $amount, decimals: $decimals, rounding: $rounding) ${RATES_SELECTION} }`;
      expect(await twin(document, variables, free)).toEqual(restOutcome(res));
    });

    it('gives the same listing through GraphQL, symbols a list there and a comma list in REST', async () => {
      const rest = await rates('?date=2024-03-29&base=jpy&symbols=USD,GBP,EUR&amount=1000&decimals=4&rounding=HALF_EVEN', developer);
      expect(rest.status).toBe(200);
      const graphql = await twin(
        `{ rates(date: "2024-03-29", base: "jpy", symbols: ["USD", "GBP", "EUR"], amount: "1000", decimals: 4, rounding: HALF_EVEN) ${RATES_SELECTION} }`,
        {},
        developer,
      );
      expect(graphql).toEqual(restOutcome(rest));
      expect(Object.keys(rest.body.data.rates)).toEqual(['USD', 'GBP', 'EUR']);
      // A long comma list (31 items, duplicates folded) is one list under both executions.
      const long = await rates(`?symbols=${'USD,jpy,'.repeat(15)}EUR`);
      expect(long.status).toBe(200);
      expect(Object.keys(long.body.data.rates)).toEqual(['USD', 'JPY', 'EUR']);
      // A comma list in a GraphQL list is one malformed code there.
      expect(await twin(`{ rates(symbols: ["USD,GBP"]) { date } }`, {}, free)).toEqual({ error: { code: 'INVALID_REQUEST', status: 400 } });
    });

    it('keeps the latest route parameter-free and explains its date', async () => {
      const res = await t.call('GET', '/v1/currency/rates/latest');
      expect(res.body.data).toMatchObject({
        date: '2024-04-02',
        base: 'EUR',
        amount: null,
        resolved: { requested: '2024-04-03', publication: '2024-04-02', carriedForward: true },
        nextPublication: { date: '2024-04-03', overdue: false },
      });
      expect((await t.call('GET', '/v1/currency/rates/latest?base=USD')).body.error).toMatchObject({ code: 'INVALID_REQUEST' });
    });
  });

  describe('POST /v1/currency/convert', () => {
    it('says how the date asked for resolved', async () => {
      const dated = await t.call('POST', '/v1/currency/convert', {
        key: developer,
        body: { value: '1', from: 'USD', to: 'JPY', date: '2024-03-31' },
      });
      expect(dated.body.data.rate.resolved).toEqual({
        requested: '2024-03-31',
        publication: '2024-03-28',
        carriedForward: true,
        reason: 'weekend',
        missingPublications: null,
      });
      const exact = await t.call('POST', '/v1/currency/convert', {
        key: developer,
        body: { value: '1', from: 'USD', to: 'JPY', date: '2024-03-28' },
      });
      expect(exact.body.data.rate.resolved).toEqual({
        requested: '2024-03-28',
        publication: '2024-03-28',
        carriedForward: false,
        reason: null,
        missingPublications: null,
      });
      const latest = await t.call('POST', '/v1/currency/convert', { key: free, body: { value: '1', from: 'USD', to: 'JPY' } });
      expect(latest.body.data.rate.resolved).toMatchObject({
        requested: '2024-04-03',
        publication: '2024-04-02',
        reason: 'not-yet-published',
      });
    });
  });
});

describe('RATE_NOT_FOUND after a euro changeover', () => {
  let t: TestApp;
  let developer: string;
  beforeAll(async () => {
    t = await createTestApp({}, { rates: tableRates(CHANGEOVER), clock: () => new Date('2023-01-03T12:00:00Z') });
    developer = await t.createKey('developer');
  });
  afterAll(() => t.close());

  const MESSAGE = 'HRK was last quoted on 2022-12-30; since 2023-01-01 1 EUR = 7.53450 HRK (irrevocable).';

  it('names the last quoted day and the fixed rate, on the listing and as a base', async () => {
    for (const [query, param] of [
      ['?symbols=HRK', 'symbols'],
      ['?base=hrk', 'base'],
      ['?date=2023-01-02&symbols=USD,HRK', 'symbols'],
    ] as const) {
      const res = await t.call('GET', `/v1/currency/rates${query}`, { key: developer });
      expect(res.status, query).toBe(404);
      expect(res.body.error, query).toMatchObject({ code: 'RATE_NOT_FOUND', param, message: MESSAGE });
    }
    const { body } = await t.graphql('{ rates(symbols: ["HRK"]) { date } }', {}, developer);
    expect(body.errors[0]).toMatchObject({ message: MESSAGE, extensions: { code: 'RATE_NOT_FOUND', status: 404 } });
  });

  const HRK_ACT = 'Council Regulation (EC) No 2866/98, Article 1, as amended by Council Regulation (EU) 2022/1208';
  const HRK_FIXED = { code: 'HRK', successor: 'EUR', rate: '7.53450', since: '2023-01-01', kind: 'euro', source: HRK_ACT };

  it('converts HRK at the irrevocable rate after the changeover, saying which parts are fixed and which published', async () => {
    const toEuro = await t.call('POST', '/v1/currency/convert', {
      key: developer,
      body: { value: '75.345', from: 'HRK', to: 'EUR', date: '2023-01-02' },
    });
    expect(toEuro.status).toBe(200);
    expect(toEuro.body.data).toMatchObject({
      result: { value: '10', unit: 'EUR' },
      rate: { date: '2023-01-02', source: HRK_ACT, value: '0.1327228084146260534872917910942995553786', fixed: [HRK_FIXED] },
    });
    // HRK → EUR fixed, EUR → USD the ECB's 1.0683 of 2023-01-02: 75.345 / 7.5345 × 1.0683.
    const toDollar = await t.call('POST', '/v1/currency/convert', {
      key: developer,
      body: { value: '75.345', from: 'hrk', to: 'USD', minorUnits: true },
    });
    expect(toDollar.body.data).toMatchObject({
      result: { value: '10.68', unit: 'USD' },
      rate: { date: '2023-01-02', source: `ecb; ${HRK_ACT}`, fixed: [HRK_FIXED] },
    });
    const { body } = await t.graphql(
      '{ convertCurrency(value: "75.345", from: "HRK", to: "EUR") { result { value } rate { source fixed { code successor rate since kind source } } } }',
      {},
      developer,
    );
    expect(body.data.convertCurrency).toEqual({ result: { value: '10' }, rate: { source: HRK_ACT, fixed: [HRK_FIXED] } });
  });

  it('converts HRK at the ECB rate before the changeover', async () => {
    const res = await t.call('POST', '/v1/currency/convert', {
      key: developer,
      body: { value: '7.5365', from: 'HRK', to: 'EUR', date: '2022-12-30' },
    });
    expect(res.body.data).toMatchObject({ result: { value: '1' }, rate: { date: '2022-12-30', source: 'ecb', fixed: [] } });
  });

  it('still lists HRK on a day it was quoted, and the registry dates it from the history', async () => {
    const res = await t.call('GET', '/v1/currency/rates?date=2023-01-01&symbols=HRK&base=USD', { key: developer });
    expect(res.body.data).toMatchObject({ date: '2022-12-30', rates: { HRK: '7.065910369398087380461278829926870429402' } });
    expect(res.body.data.resolved).toEqual({
      requested: '2023-01-01',
      publication: '2022-12-30',
      carriedForward: true,
      reason: 'weekend',
      missingPublications: null,
    });
    const hrk = await t.call('GET', '/v1/currencies/HRK');
    expect(hrk.body.data).toMatchObject({
      firstDate: '2022-12-29',
      lastDate: '2022-12-30',
      status: 'retired',
      successor: { rate: '7.53450', since: '2023-01-01' },
    });
  });
});

describe('the registry after a new publication', () => {
  it('is computed in the background when the rates change, so the first request after it reads no publication', async () => {
    const rates = revisableRates(MADE_UP_PUBLICATIONS.slice(0, 2));
    const t = await createTestApp({}, { rates, clock: () => new Date('2024-04-03T12:00:00Z') });
    try {
      await vi.waitFor(() => expect(rates.reads.length).toBeGreaterThan(0));
      const reads = rates.reads.length;
      rates.publish(MADE_UP_PUBLICATIONS);
      // The background fold of the new history is under way: it reads, a request need not.
      await vi.waitFor(() => expect(rates.reads.length).toBeGreaterThan(reads));
      const settled = rates.reads.length;
      const res = await t.call('GET', '/v1/currencies/EUR');
      expect(res.body.data).toMatchObject({ lastDate: '2024-04-02' });
      expect(rates.reads.length).toBe(settled);
    } finally {
      await t.close();
    }
  });
});

describe('rates behind the ECB calendar are called stale', () => {
  // Made-up publications that stop on 2025-10-15, and a clock seven months on: 2026-05-05 12:00 Berlin.
  const BEHIND: Publication[] = [
    { date: '2025-10-10', rates: { USD: '1.1570', JPY: '176.00' } },
    { date: '2025-10-14', rates: { USD: '1.1600', JPY: '176.20' } },
    { date: '2025-10-15', rates: { USD: '1.1650', JPY: '176.50' } },
  ];
  const STALE = { publication: '2025-10-15', carriedForward: true, reason: 'stale', missingPublications: 137 };
  let t: TestApp;
  let developer: string;
  beforeAll(async () => {
    t = await createTestApp(
      {},
      { rates: tableRates(BEHIND, { stale: true, missingPublications: 137 }), clock: () => new Date('2026-05-05T10:00:00Z') },
    );
    developer = await t.createKey('developer');
  });
  afterAll(() => t.close());

  it('says stale, with the publications missing, for a business day, a holiday and today alike', async () => {
    for (const date of ['2026-05-04', '2026-05-01']) {
      const res = await t.call('GET', `/v1/currency/rates?date=${date}&symbols=USD`, { key: developer });
      expect(res.body.data.resolved, date).toEqual({ requested: date, ...STALE });
      const convert = await t.call('POST', '/v1/currency/convert', { key: developer, body: { value: '1', from: 'EUR', to: 'USD', date } });
      expect(convert.body.data.rate.resolved, date).toEqual({ requested: date, ...STALE });
    }
    const { body } = await t.graphql('{ rates(date: "2026-05-04") { resolved { reason missingPublications } } }', {}, developer);
    expect(body.data.rates.resolved).toEqual({ reason: 'stale', missingPublications: 137 });
    // A day the rates held cover keeps its calendar reason.
    const weekend = await t.call('GET', '/v1/currency/rates?date=2025-10-12&symbols=USD', { key: developer });
    expect(weekend.body.data.resolved).toEqual({
      requested: '2025-10-12',
      publication: '2025-10-10',
      carriedForward: true,
      reason: 'weekend',
      missingPublications: null,
    });
  });

  it('gives the latest listing a next publication that is overdue and past, never to come', async () => {
    const latest = await t.call('GET', '/v1/currency/rates/latest');
    expect(latest.body.data.resolved).toEqual({ requested: '2026-05-05', ...STALE });
    expect(latest.body.data.nextPublication).toEqual({
      date: '2025-10-16',
      expectedAt: '2025-10-16T14:00:00.000Z',
      overdue: true,
      missingPublications: 137,
    });
  });

  it('has /v1/health degraded, with the count', async () => {
    const res = await t.call('GET', '/v1/health');
    expect(res.body.data).toMatchObject({ status: 'degraded', rates: { date: '2025-10-15', stale: true, missingPublications: 137 } });
  });
});
