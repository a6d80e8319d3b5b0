import assert from 'node:assert/strict';
import { batchItems, checkBatchAnswer } from './batch';
import {
  checkCurrencyAnswer,
  CURRENCY_CONVERT_PATH,
  ECB_CONVERT_BODY,
  expectedEcbConversion,
  expectedTwoSourceConversion,
  TWO_SOURCE_CONVERT_BODY,
} from './currency';
import type { ConfigConnection } from './configs';
import type { MemoryReport } from './memory';

/** What the parent tells the app's child, servers.ts (its one argument, as JSON). */
export interface ServersOptions {
  /** Business accounts (one key each) for the batch row: see batchAccountsFor. */
  batchAccounts: number;
  /** The ECB history the rates service imports at start (RATES_FILE); absent: no memory figures. */
  ratesFile?: string;
  /** Why ratesFile is absent, printed in the report. */
  memorySkipped?: string;
  /** Where to write a V8 heap snapshot once the history is loaded (after the memory figures). */
  heapSnapshot?: string;
  /** PostgreSQL and/or Redis for this child's app (configs.ts); absent: the SQLite default, memory counters. */
  connection?: ConfigConnection;
  /** Also a second front on the same app whose /graphql is Yoga on graphql-jit (yoga-jit.ts): the graphql-yoga-jit row. */
  yogaJit?: boolean;
  /** The folder of the publishers' recorded feeds (../shared/feeds): NBP's and the NBU's files imported at start (currency.ts). */
  feedsDir?: string;
}

/** What the app's child (servers.ts) reports once the app listens on loopback. */
export interface AppServersReady {
  appPort: number;
  /** A business-plan key: its monthly quota (2,000,000) is far above what one row sends. */
  key: string;
  /** One key per business account, for the batch row. */
  batchKeys: string[];
  /** The exact body bytes GET /v1/convert answered, which the baseline serves. */
  convertBody: string;
  contentType: string;
  /** That answer's headers as the app sent them, less those node:http writes itself (date, connection…). */
  answerHeaders: [string, string][];
  memory: MemoryReport;
  /** The second front (ServersOptions.yogaJit) and its own business key; absent unless asked for. */
  yogaJit?: { port: number; key: string };
  /** The files the currency rows' answers are computed from, when the child loaded them: the ECB history, and the feeds folder when imported. */
  currencyFiles?: { ratesFile: string; feedsDir?: string };
}

/** What the parent tells the comparison servers' child (bare-servers.ts): the app's answer to repeat. */
export type BareServersOptions = Pick<AppServersReady, 'convertBody' | 'contentType' | 'answerHeaders'>;

/** What the comparison servers' child reports once its servers listen on loopback. */
export interface BareServersReady {
  baselinePort: number;
  /** node:http answering with the app's whole answer to GET /v1/convert: its body and its headers. */
  answerPort: number;
  expressPort: number;
}

/** Both children's ports and keys: what the targets are built from. */
export type ServersReady = AppServersReady & BareServersReady;

export interface Target {
  /** Short name for `--only`. */
  id: string;
  label: string;
  /** baseline: the ratios' denominator; peer: the Express service; reference: a bare handler, for scale; app: this project. */
  kind: 'baseline' | 'peer' | 'reference' | 'app';
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  /** Requests cycle through these headers in turn on every connection (the batch row's keys). */
  headerCycle?: Record<string, string>[];
  body?: string;
  /** Conversions per request (batch): the report shows items/s = req/s × this. */
  itemsPerRequest?: number;
  /**
   * Throws unless the parsed answer is the one this target must give. Every response of the run
   * must then repeat that checked body byte for byte (the peer's float digits included).
   */
  check(json: unknown, text: string): void;
  /**
   * What of each body must repeat byte for byte, when not all of it can (GraphQL's `extensions`
   * count the quota down): the whole body when absent.
   */
  steady?(text: string): string;
  /** The Content-Encoding the answer must come in (the compressed rows); checked on the verified answer. */
  contentEncoding?: 'gzip' | 'br';
}

/** A GraphQL body without its `extensions` (the last member, after `data`): what stays the same request after request. */
export function withoutExtensions(text: string): string {
  const at = text.indexOf(',"extensions":');
  return at < 0 ? text : `${text.slice(0, at)}}`;
}

export const TARGET_IDS = [
  'baseline',
  'answer',
  'express',
  'rest',
  'graphql',
  'graphql-yoga-jit',
  'units',
  'batch',
  'series',
  'series-gzip',
  'currency',
  'currency-two-source',
] as const;

/** Rows run only when `--only` names them: the graphql-yoga-jit row's second handler would add to the app child's memory figures. */
export const NAMED_ONLY: readonly string[] = ['graphql-yoga-jit', 'currency', 'currency-two-source'];

/** Ten whole years of every currency as one JSON answer (1.47 MB identity): the compressed series row. */
export const SERIES_PATH = '/v1/currency/rates/series?start=2015-01-01&end=2024-12-31';

export const CONVERT_PATH = '/v1/convert?value=12.5&from=inch&to=centimeter';
export const PEER_PATH = '/v1/convert?value=12.5&from=in&to=cm';

// Written from the definition of the inch (exactly 2.54 cm), not copied from the app's output.
const CONVERSION = { category: 'length', input: { unit: 'inch', value: '12.5' }, result: { unit: 'centimeter', value: '31.75' } };

// Selects the same fields as the REST body, so both rows resolve and serialize the same object.
const CONVERT_QUERY = '{ convert(value: "12.5", from: "inch", to: "centimeter") { category input { unit value } result { unit value } } }';

/** The keyed GraphQL convert request of the graphql rows: the executor's and Yoga's on graphql-jit get the same bytes. */
export function graphQLConvertRequest(key: string): { method: 'POST'; headers: Record<string, string>; body: string } {
  return {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: CONVERT_QUERY }),
  };
}

/** A graphql row: POST /graphql convert on `origin` with `key`, its data and its cost checked. */
function graphQLConvertTarget(id: string, label: string, origin: string, key: string): Target {
  return {
    id,
    label,
    kind: 'app',
    url: `${origin}/graphql`,
    ...graphQLConvertRequest(key),
    check: (json) => {
      const { data, extensions } = json as { data?: unknown; extensions?: { cost?: unknown } };
      assert.deepEqual(data, { convert: CONVERSION });
      assert.deepEqual(extensions?.cost, { requestedConversions: 1, chargedConversions: 1, requests: 1 });
    },
    steady: withoutExtensions,
  };
}

/**
 * The peer computes in binary floating point through 1 ft = 1/3.28084 m and answers
 * 31.749998984000026: 1.016e-6 from 31.75. An absolute tolerance of 1e-6 would refuse that, so
 * the check allows a relative 1e-6 (±3.2e-5 cm here), far tighter than any unit mix-up.
 */
export const PEER_RELATIVE_TOLERANCE = 1e-6;

export function checkPeerAnswer(json: unknown): void {
  const data = (json as { data?: { input?: unknown; result?: { value?: unknown; unit?: unknown }; category?: unknown } }).data;
  assert.ok(data, 'no data');
  assert.deepEqual(data.input, { value: 12.5, unit: 'in' });
  assert.equal(data.category, 'length');
  assert.equal(data.result?.unit, 'cm');
  const value = data.result?.value;
  assert.equal(typeof value, 'number', 'result.value must be a JSON number');
  assert.ok(
    Math.abs((value as number) - 31.75) <= PEER_RELATIVE_TOLERANCE * 31.75,
    `result ${String(value)} is not within a relative 1e-6 of 31.75`,
  );
}

export function benchTargets(s: ServersReady): Target[] {
  const app = `http://127.0.0.1:${s.appPort}`;
  const auth = { authorization: `Bearer ${s.key}` };
  const items = batchItems();
  /** A bare handler's row: GET /v1/convert on its port, which must answer the app's own body. */
  const bare = (id: string, label: string, kind: Target['kind'], port: number): Target => ({
    id,
    label,
    kind,
    url: `http://127.0.0.1:${port}${CONVERT_PATH}`,
    method: 'GET',
    headers: {},
    check: (json, text) => {
      assert.equal(text, s.convertBody, `${id} body differs from the app body`);
      assert.deepEqual(json, { data: CONVERSION });
    },
  });
  return [
    bare('baseline', 'baseline: node:http, same bytes', 'baseline', s.baselinePort),
    // Not a goal's denominator: how fast node:http alone sends what GET /v1/convert must send (the
    // contract's 13 headers, a fresh request id each time), so a run shows what share of the gap
    // to the baseline is the answer itself and what share is the work behind it.
    bare('answer', "reference: node:http, the app's whole answer (headers too)", 'reference', s.answerPort),
    {
      id: 'express',
      label: 'peer: Express 5 + convert-units (no auth, float)',
      kind: 'peer',
      url: `http://127.0.0.1:${s.expressPort}${PEER_PATH}`,
      method: 'GET',
      headers: {},
      check: checkPeerAnswer,
    },
    {
      id: 'rest',
      label: 'GET /v1/convert',
      kind: 'app',
      url: app + CONVERT_PATH,
      method: 'GET',
      headers: auth,
      check: (json) => assert.deepEqual(json, { data: CONVERSION }),
    },
    graphQLConvertTarget('graphql', 'POST /graphql convert', app, s.key),
    // The same request to the same app, its /graphql answered by Yoga on graphql-jit (yoga-jit.ts).
    ...(s.yogaJit
      ? [
          graphQLConvertTarget(
            'graphql-yoga-jit',
            'POST /graphql convert, Yoga + graphql-jit',
            `http://127.0.0.1:${s.yogaJit.port}`,
            s.yogaJit.key,
          ),
        ]
      : []),
    {
      id: 'units',
      label: 'GET /v1/units/meter (public)',
      kind: 'app',
      url: `${app}/v1/units/meter`,
      method: 'GET',
      headers: {},
      check: (json) => assert.equal((json as { data?: { id?: unknown } }).data?.id, 'meter'),
    },
    {
      id: 'batch',
      label: `POST /v1/batch, ${items.length.toLocaleString('en-US')} items`,
      kind: 'app',
      url: `${app}/v1/batch`,
      method: 'POST',
      headers: { authorization: `Bearer ${s.batchKeys[0]}`, 'content-type': 'application/json' },
      headerCycle: s.batchKeys.map((key) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' })),
      body: JSON.stringify({ items }),
      itemsPerRequest: items.length,
      check: (json) => checkBatchAnswer(json, items),
    },
    // Only with the ECB history loaded (memory figures, or --only series,series-gzip).
    ...('skipped' in s.memory ? [] : [seriesTarget(app, s.key, undefined), seriesTarget(app, s.key, 'gzip')]),
    ...currencyTargets(app, s),
  ];
}

/** The keyed ECB conversion and the two-source one (currency.ts), when the child loaded their files. */
function currencyTargets(app: string, s: ServersReady): Target[] {
  const files = s.currencyFiles;
  if (!files) return [];
  const headers = { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' };
  const ecb = expectedEcbConversion(files.ratesFile);
  const rows: Target[] = [
    {
      id: 'currency',
      label: 'POST /v1/currency/convert USD→JPY (ECB)',
      kind: 'app',
      url: app + CURRENCY_CONVERT_PATH,
      method: 'POST',
      headers,
      body: ECB_CONVERT_BODY,
      check: (json) => checkCurrencyAnswer(json, ecb, 'JPY', 'ecb'),
    },
  ];
  if (!files.feedsDir) return rows;
  const joined = expectedTwoSourceConversion(files.feedsDir);
  rows.push({
    id: 'currency-two-source',
    label: 'POST /v1/currency/convert KES→XAU (nbp; nbu)',
    kind: 'app',
    url: app + CURRENCY_CONVERT_PATH,
    method: 'POST',
    headers,
    body: TWO_SOURCE_CONVERT_BODY,
    check: (json) => checkCurrencyAnswer(json, joined, 'XAU', 'nbp; nbu'),
  });
  return rows;
}

/**
 * GET of a ten-year series, as it is (`series`) and with `Accept-Encoding: gzip` (`series-gzip`):
 * the difference in CPU per request is what compressing a large answer costs. The verified answer
 * is decoded by fetch and checked; under load autocannon cannot decode, so each gzip response is
 * held to its status only (`steady` reduces every body to the same text), an identity one to the
 * verified bytes.
 */
function seriesTarget(app: string, key: string, coding: 'gzip' | undefined): Target {
  return {
    id: coding ? `series-${coding}` : 'series',
    label: `GET series 2015–2024, all currencies${coding ? `, ${coding}` : ''}`,
    kind: 'app',
    url: app + SERIES_PATH,
    method: 'GET',
    headers: { authorization: `Bearer ${key}`, ...(coding ? { 'accept-encoding': coding } : {}) },
    ...(coding ? { contentEncoding: coding, steady: () => coding } : {}),
    check: (json) => checkSeriesAnswer(json),
  };
}

/** The series answer: every ECB publication day of 2015 to 2024 (first 2015-01-02, last 2024-12-31, as the ECB's files list them), the US dollar in each. */
export function checkSeriesAnswer(json: unknown): void {
  const data = (json as { data?: { group?: unknown; entries?: { period: string; rates: Record<string, string> }[] } }).data;
  assert.ok(data?.entries && data.entries.length > 2000, 'fewer than 2,000 entries');
  assert.equal(data.group, 'day');
  assert.equal(data.entries[0]!.period, '2015-01-02');
  const missing = data.entries.find((entry) => !/^\d+(\.\d+)?$/.test(entry.rates['USD'] ?? ''));
  assert.equal(missing, undefined, `an entry without a USD rate: ${JSON.stringify(missing)}`);
}

/** One real request over loopback; returns the body that every response of the run must repeat. */
export async function verifyTarget(target: Target): Promise<string> {
  const response = await fetch(target.url, { method: target.method, headers: target.headers, body: target.body });
  const text = await response.text();
  try {
    assert.equal(response.status, 200, `status ${response.status}`);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/, 'content-type');
    if (target.contentEncoding) assert.equal(response.headers.get('content-encoding'), target.contentEncoding, 'content-encoding');
    target.check(JSON.parse(text), text);
  } catch (error) {
    throw new Error(`${target.label} is not answering as expected (${(error as Error).message}); body: ${text.slice(0, 300)}`, {
      cause: error,
    });
  }
  return target.steady ? target.steady(text) : text;
}
