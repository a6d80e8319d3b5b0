import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEcbFile } from '../../src/domain/ecb';
import type { RecordedExamples } from '../../src/http/openapi/openapi-examples';
import { createTestApp, type TestApp } from '../helpers/app';
import { sharedDataPresent } from '../helpers/shared-data';
import { tableRates } from '../helpers/table-rates';

/**
 * The response examples of the OpenAPI document are real answers: this suite sends each request
 * of SAMPLES to the server (the real ECB history, read from ../shared/ecb, never copied in; the
 * clock a morning after its newest publication, so the latest rates are current), checks every
 * answer against the document (t.call), and compares the answers with
 * schema/openapi-examples.json. `npm run schema:examples` (UPDATE_EXAMPLES=1) writes the file
 * instead; `npm run schema:print` then puts them in schema/openapi.json.
 */
const DIR = resolve(process.cwd(), '../shared/ecb');
const PRESENT = sharedDataPresent(DIR);
const FILE = 'schema/openapi-examples.json';
const NOW = new Date('2026-04-14T07:30:00Z');

interface Sample {
  /** The operation as the document names it: method and templated path. */
  operation: string;
  name: string;
  method: 'GET' | 'POST';
  url: string;
  key?: 'developer' | 'free';
  body?: unknown;
}

const get = (operation: string, name: string, url: string, key?: Sample['key']): Sample => ({
  operation: `GET ${operation}`,
  name,
  method: 'GET',
  url,
  ...(key ? { key } : {}),
});
const post = (operation: string, name: string, url: string, body: unknown, key: Sample['key'] = 'developer'): Sample => ({
  operation: `POST ${operation}`,
  name,
  method: 'POST',
  url,
  body,
  key,
});

/** What the examples show, per route: a typical answer, then the refusals a client meets first. */
const SAMPLES: Sample[] = [
  get('/v1/categories', 'categories', '/v1/categories'),
  get('/v1/categories', 'misspeltParameter', '/v1/categories?language=de'),
  get('/v1/categories/{category}', 'temperature', '/v1/categories/temperature'),
  get('/v1/categories/{category}', 'unknownCategory', '/v1/categories/lenght'),
  get('/v1/units', 'speedUnits', '/v1/units?category=speed'),
  get('/v1/units', 'unknownCategory', '/v1/units?category=speeds'),
  get('/v1/units/{unit}', 'foot', '/v1/units/ft'),
  get('/v1/units/{unit}', 'unknownUnit', '/v1/units/furlongs'),
  get('/v1/convert', 'units', '/v1/convert?value=26.2&from=mi&to=km&decimals=3', 'developer'),
  get('/v1/convert', 'currencyPair', '/v1/convert?value=100&from=USD&to=EUR&date=2024-03-28', 'developer'),
  get('/v1/convert', 'expression', '/v1/convert?value=0.25&from=EUR%2FkWh&to=USD%2FMWh&date=2024-03-28&decimals=2', 'developer'),
  get('/v1/convert', 'incompatibleUnits', '/v1/convert?value=1&from=kg&to=m', 'developer'),
  get('/v1/convert', 'valueAsNumber', '/v1/convert?value=1e3&from=kg&to=lb', 'developer'),
  get('/v1/convert', 'noKey', '/v1/convert?value=1&from=kg&to=lb'),
  get('/v1/convert', 'historyOnFree', '/v1/convert?value=100&from=USD&to=EUR&date=2024-03-28', 'free'),
  post('/v1/convert', 'units', '/v1/convert', { value: '98.6', from: 'fahrenheit', to: 'celsius', decimals: 1 }),
  post('/v1/convert', 'missingTo', '/v1/convert', { value: '1', from: 'kg' }),
  post('/v1/batch', 'mixed', '/v1/batch', {
    items: [
      { value: '12.5', from: 'in', to: 'cm' },
      { value: '100', from: 'USD', to: 'JPY', date: '2024-03-29', minorUnits: true },
      { value: '1', from: 'kg', to: 'm' },
    ],
  }),
  post('/v1/batch', 'noItems', '/v1/batch', { items: [] }),
  post('/v1/currency/convert', 'carriedForward', '/v1/currency/convert', { value: '100', from: 'USD', to: 'JPY', date: '2024-03-30' }),
  post('/v1/currency/convert', 'fixedRate', '/v1/currency/convert', { value: '75.345', from: 'HRK', to: 'EUR', date: '2024-01-05' }),
  post('/v1/currency/convert', 'minorUnits', '/v1/currency/convert', { value: '100', from: 'USD', to: 'JPY', minorUnits: true }),
  post('/v1/currency/convert', 'unknownCurrency', '/v1/currency/convert', { value: '100', from: 'GPB', to: 'EUR' }),
  post('/v1/currency/convert', 'beforeTheEuro', '/v1/currency/convert', { value: '100', from: 'USD', to: 'EUR', date: '1998-12-31' }),
  get('/v1/currency/rates', 'holiday', '/v1/currency/rates?date=2024-03-29&symbols=USD,JPY,GBP', 'developer'),
  get('/v1/currency/rates', 'impossibleDate', '/v1/currency/rates?date=2024-02-30', 'developer'),
  get('/v1/currency/rates', 'baseAndAmount', '/v1/currency/rates?base=USD&amount=250&symbols=EUR,GBP,CHF', 'developer'),
  get('/v1/currency/rates/latest', 'latest', '/v1/currency/rates/latest'),
  get('/v1/currency/rates/latest', 'dateOnLatest', '/v1/currency/rates/latest?date=2024-03-28'),
  get(
    '/v1/currency/rates/series',
    'monthlyMeans',
    '/v1/currency/rates/series?start=2024-01-01&end=2024-03-31&symbols=USD,JPY&group=month',
    'developer',
  ),
  get('/v1/currency/rates/series', 'days', '/v1/currency/rates/series?start=2024-03-25&end=2024-04-02&symbols=USD,GBP', 'developer'),
  get('/v1/currency/rates/series', 'freePlan', '/v1/currency/rates/series?start=2024-01-01&end=2024-03-31', 'free'),
  get('/v1/currency/rates/series', 'unknownFormat', '/v1/currency/rates/series?start=2024-03-25&format=xlsx', 'developer'),
  get(
    '/v1/currency/rates/series.csv',
    'days',
    '/v1/currency/rates/series.csv?start=2024-03-25&end=2024-04-02&symbols=USD,GBP',
    'developer',
  ),
  get('/v1/currency/rates/series.csv', 'freePlan', '/v1/currency/rates/series.csv?start=2024-01-01&end=2024-03-31', 'free'),
  get(
    '/v1/currency/rates/series.ndjson',
    'days',
    '/v1/currency/rates/series.ndjson?start=2024-03-25&end=2024-04-02&symbols=USD,GBP',
    'developer',
  ),
  get('/v1/currency/rates/series.ndjson', 'formatOnNdjson', '/v1/currency/rates/series.ndjson?start=2024-03-25&format=csv', 'developer'),
  post('/v1/currency/rates/series/links', 'weekLink', '/v1/currency/rates/series/links', {
    start: '2024-01-01',
    symbols: ['USD', 'JPY'],
    format: 'csv',
    expiresIn: 604800,
  }),
  post('/v1/currency/rates/series/links', 'freePlan', '/v1/currency/rates/series/links', { start: '2024-01-01', symbols: ['USD'] }, 'free'),
  get('/v1/currencies', 'registry', '/v1/currencies'),
  get('/v1/currencies', 'byName', '/v1/currencies?name=Schweizer%20Franken&lang=de'),
  get('/v1/currencies', 'misspeltParameter', '/v1/currencies?nmae=krone'),
  get('/v1/currencies/{code}', 'retiredWithSuccessor', '/v1/currencies/HRK'),
  get('/v1/currencies/{code}', 'active', '/v1/currencies/usd'),
  get('/v1/currencies/{code}', 'unknownCurrency', '/v1/currencies/XYZ'),
  get('/v1/sources', 'sources', '/v1/sources'),
  get('/v1/sources', 'unknownParameter', '/v1/sources?source=ecb'),
  get('/v1/usage', 'usage', '/v1/usage', 'developer'),
  get('/v1/usage', 'noKey', '/v1/usage'),
  get('/v1/health', 'health', '/v1/health'),
];

/** The answers with what differs from run to run replaced: request ids, and a link's key id and signature. */
/** A link of a short range, made in the run and fetched as made (its answer), then with its start changed (a refusal). */
const LINKED = { start: '2024-03-25', end: '2024-04-02', symbols: ['USD', 'GBP'], format: 'csv', expiresIn: 3600 };

const withoutRequestIds = (examples: RecordedExamples): unknown =>
  JSON.parse(
    JSON.stringify(examples)
      .replace(/"requestId":"[^"]+"/g, '"requestId":"…"')
      .replace(/key_[A-Za-z0-9_-]+/g, 'key_…')
      .replace(/signature=[A-Za-z0-9_%-]+/g, 'signature=…'),
  );

describe.skipIf(!PRESENT)('schema/openapi-examples.json: the OpenAPI examples are real answers', () => {
  let t: TestApp;
  let recorded: RecordedExamples;

  beforeAll(async () => {
    const history = parseEcbFile(readFileSync(join(DIR, 'eurofxref-hist.zip')), 'eurofxref-hist.zip');
    t = await createTestApp(
      { KEY_RATE_LIMIT: '1000', PUBLIC_ORIGIN: 'https://api.example.com' },
      { rates: tableRates(history), clock: () => NOW },
    );
    const keys = { developer: await t.createKey('developer'), free: await t.createKey('free') };
    recorded = {};
    for (const sample of SAMPLES) {
      // t.call checks each answer against the document: its status, headers and body.
      const answer = await t.call(sample.method, sample.url, {
        ...(sample.key ? { key: keys[sample.key] } : {}),
        ...(sample.body === undefined ? {} : { body: sample.body }),
      });
      const byStatus = ((recorded[sample.operation] ??= {})[String(answer.status)] ??= {});
      byStatus[sample.name] = { summary: `${sample.method} ${decodeURIComponent(sample.url)}`, value: answer.body ?? answer.text };
    }
    const { url } = (await t.call('POST', '/v1/currency/rates/series/links', { key: keys.developer, body: LINKED })).body.data;
    const signed = (recorded['GET /v1/currency/rates/series/signed'] = {} as RecordedExamples[string]);
    const shown = decodeURIComponent(new URL(url).pathname + new URL(url).search.replace(/signature=[^&]+/, 'signature=…'));
    signed['200'] = { days: { summary: `GET ${shown}`, value: (await t.call('GET', url)).text } };
    const changed = await t.call('GET', url.replace('start=2024-03-25', 'start=2024-03-26'));
    signed[String(changed.status)] = {
      changedLink: { summary: `GET ${shown.replace('start=2024-03-25', 'start=2024-03-26')}`, value: changed.body },
    };
    if (process.env['UPDATE_EXAMPLES'] === '1') writeFileSync(FILE, `${JSON.stringify(recorded, null, 2)}\n`);
  }, 120_000);
  afterAll(() => t?.close());

  it('records a success of every /v1 route, and a refusal of every route that takes an input or a key', () => {
    const document = JSON.parse(readFileSync('schema/openapi.json', 'utf8')) as {
      paths: Record<string, Record<string, { parameters?: unknown[]; requestBody?: unknown; security: unknown[] }>>;
    };
    const routes = Object.entries(document.paths).flatMap(([path, item]) =>
      (['get', 'post'] as const)
        .filter((m) => m in item && path.startsWith('/v1/'))
        .map((m) => ({ name: `${m.toUpperCase()} ${path}`, operation: item[m]! })),
    );
    expect(routes.map((r) => r.name).filter((name) => !(name in recorded))).toEqual([]);
    for (const { name, operation } of routes) {
      const statuses = Object.keys(recorded[name]!);
      expect(statuses, name).toContain('200');
      const refusable = operation.parameters !== undefined || operation.requestBody !== undefined || operation.security.length > 0;
      if (refusable)
        expect(
          statuses.some((status) => Number(status) >= 400),
          `${name}: a refusal`,
        ).toBe(true);
    }
  });

  it('are the answers the server gives now (else: npm run schema:examples, then npm run schema:print)', () => {
    const committed = JSON.parse(readFileSync(FILE, 'utf8')) as RecordedExamples;
    expect(withoutRequestIds(committed)).toEqual(withoutRequestIds(recorded));
  });

  it('are in schema/openapi.json, on their operations', () => {
    const document = JSON.parse(readFileSync('schema/openapi.json', 'utf8')) as {
      paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { examples?: unknown }> }> }>>;
    };
    for (const [operation, statuses] of Object.entries(recorded)) {
      const [method, path] = operation.split(' ') as [string, string];
      for (const status of Object.keys(statuses)) {
        const content = document.paths[path]![method.toLowerCase()]!.responses[status]!.content!;
        const examples = (content['application/json'] ?? Object.values(content)[0])!.examples;
        expect(withoutRequestIds({ [operation]: { [status]: examples as never } }), `${operation} ${status}`).toEqual(
          withoutRequestIds({ [operation]: { [status]: statuses[status]! } }),
        );
      }
    }
  });
});
