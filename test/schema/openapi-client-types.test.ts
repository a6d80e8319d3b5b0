import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * What a client generator makes of the committed OpenAPI document: openapi-typescript's types,
 * compiled by tsc (strict) with a few lines a client would write.
 */
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'openapi-types-'));
  const document = JSON.parse(readFileSync('schema/openapi.json', 'utf8'));
  writeFileSync(path.join(dir, 'api.ts'), astToString(await openapiTS(document)));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every client file of the suite, compiled in one program (loading the libraries once). */
const clients = new Map<string, string>();
let diagnostics: Map<string, string[]> | undefined;

/** The diagnostics of one client file compiled against the generated types. */
function compile(client: string): string[] {
  if (!diagnostics) {
    const files = [...clients].map(([name, text]) => {
      writeFileSync(path.join(dir, name), text);
      return path.join(dir, name);
    });
    // The clients import openapi-fetch from this project's node_modules, wherever the temporary folder is.
    const fetchTypes = path.resolve('node_modules/openapi-fetch/dist/index.d.mts');
    const program = ts.createProgram(files, {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      skipLibCheck: true,
      types: [],
      paths: { 'openapi-fetch': [fetchTypes] },
    });
    diagnostics = new Map(files.map((file) => [path.basename(file), [] as string[]]));
    for (const d of ts.getPreEmitDiagnostics(program))
      diagnostics.get(path.basename(d.file?.fileName ?? ''))?.push(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  }
  const name = [...clients].find(([, text]) => text === client)?.[0];
  return diagnostics.get(name!)!;
}

const HEADER = `import type { components, paths } from './api';
type Latest = paths['/v1/currency/rates/latest']['get']['responses'][200]['content']['application/json'];
declare const latest: Latest;
const rates = latest.data.rates;
`;

const USES_RATES = `${HEADER}export const usd: string = rates.USD.toUpperCase();\nexport const all: Record<string, string> = rates;\n`;
const MISUSES_RATES = `${HEADER}export const n: number = rates.USD;\n`;
const PATH_PARAMETERS = `import type { paths } from './api';
export const unit: paths['/v1/units/{unit}']['get']['parameters']['path'] = { unit: 'ft' };
export const category: paths['/v1/categories/{category}']['get']['parameters']['path'] = { category: 'length' };
`;
/** A path whose CORS preflight is answered but is no operation: its `options` is never (only undefined fits). */
const NO_PREFLIGHT = `import type { paths } from './api';
export const none: paths['/v1/currency/rates/latest']['options'] = undefined;
`;
/** The same for a method the path has: an operation's type is no undefined, so the check above can fail. */
const GET_IS_AN_OPERATION = `import type { paths } from './api';
export const none: paths['/v1/currency/rates/latest']['get'] = undefined;
`;
/** A client of openapi-fetch, as its README writes one: JSON answers by default. */
const FETCH_CLIENT = `import createClient from 'openapi-fetch';
import type { components, paths } from './api';
const client = createClient<paths, 'application/json'>({ baseUrl: 'http://127.0.0.1:8080' });
`;
const SERIES_AND_BATCH = `${FETCH_CLIENT}
export async function monthlyMeans(): Promise<string | undefined> {
  const s = await client.GET('/v1/currency/rates/series', { params: { query: { start: '2024-01-01', symbols: 'USD', group: 'month' } } });
  return s.data?.data.entries[0]?.rates['USD'] ?? undefined;
}
export async function batch(): Promise<string[]> {
  const b = await client.POST('/v1/batch', { body: { items: [{ value: '100', from: 'USD', to: 'EUR' }] } });
  // openapi-fetch 0.17's Readable drops members typed never (openapi-ts/openapi-typescript#2620): \`in\` narrows.
  return (b.data?.data.results ?? []).map((r) => ('data' in r ? r.data.result.value : r.error.code));
}
export async function reason(): Promise<components['schemas']['CarryReason'] | null | undefined> {
  const r = await client.GET('/v1/currency/rates', { params: { query: { date: '2024-03-30' } } });
  const why = r.data?.data.resolved.reason;
  if (why === 'weekend' || why === 'holiday' || why === 'not-yet-published' || why === 'no-publication' || why === 'stale') return why;
  return why;
}
`;
/** The generated entry type: the branches exclude each other, so testing one member narrows it. */
const BATCH_ENTRY = `import type { components } from './api';
type Entry = components['schemas']['BatchResult']['results'][number];
export const outcome = (r: Entry): string => (r.error === undefined ? r.data.result.value : r.error.code);
export const failed = (r: Entry): boolean => !r.data && r.error.status >= 400;
`;
/** A client that reads both members of one entry, as if an entry could be both: refused. */
const BOTH_BRANCHES = `import type { components } from './api';
declare const r: components['schemas']['BatchResult']['results'][number];
export const both = r.data !== undefined && r.error.code;
`;
/** The listings' closed sets, as enums: group and source. */
const LISTING_ENUMS = `import type { components } from './api';
declare const s: components['schemas']['RateSeries'];
export const group: 'day' | 'week' | 'month' | 'quarter' | 'year' = s.group;
export const source: 'ecb' | 'boc' | 'nb' | 'cnb' | 'nbp' | 'boi' | 'nbu' | 'cbr' | 'imf' = s.source;
`;
const WRONG_REASON = `import type { components } from './api';\nexport const why: components['schemas']['CarryReason'] = 'holidays';\n`;
const WRONG_GROUP = `${FETCH_CLIENT}
export const s = client.GET('/v1/currency/rates/series', { params: { query: { start: '2024-01-01', group: 'fortnight' } } });
`;
const QUOTA_HEADER_NAMES = `import type { components } from './api';
export type Names = keyof components['headers'];
export const names: Names[] = ['X-Quota-Limit', 'X-Quota-Remaining', 'X-Quota-Reset', 'Key-Expires', 'X-Request-Id', 'Retry-After', 'WWW-Authenticate', 'RateLimit', 'RateLimit-Policy'];
`;

[
  USES_RATES,
  MISUSES_RATES,
  PATH_PARAMETERS,
  NO_PREFLIGHT,
  GET_IS_AN_OPERATION,
  SERIES_AND_BATCH,
  BATCH_ENTRY,
  BOTH_BRANCHES,
  LISTING_ENUMS,
  WRONG_REASON,
  WRONG_GROUP,
  QUOTA_HEADER_NAMES,
].forEach((text, i) => clients.set(`client-${i}.ts`, text));

describe('types generated by openapi-typescript from schema/openapi.json', () => {
  it('type the rates as a map of strings: rates.USD.toUpperCase() compiles', () => {
    expect(compile(USES_RATES)).toEqual([]);
  });

  it('refuse what the rates are not: a rate is no number', () => {
    expect(compile(MISUSES_RATES).join('\n')).toMatch(/not assignable to type 'number'/);
  });

  it('name the path parameters {category} and {unit}', () => {
    expect(compile(PATH_PARAMETERS)).toEqual([]);
  });

  it('list no CORS preflight operation (options is never on a shared path), while its GET is one', () => {
    expect(compile(NO_PREFLIGHT)).toEqual([]);
    expect(compile(GET_IS_AN_OPERATION).join('\n')).toMatch(/'undefined' is not assignable/);
  });

  it('openapi-fetch: the series JSON answer is s.data.data, batch entries narrow, every always-sent member is there (resolved.reason)', () => {
    expect(compile(SERIES_AND_BATCH)).toEqual([]);
  });

  it('batch entries narrow on their members: data and error exclude each other (`r.error === undefined` is a success)', () => {
    expect(compile(BATCH_ENTRY)).toEqual([]);
  });

  it('batch entries are never both: reading error on an entry with data does not compile', () => {
    expect(compile(BOTH_BRANCHES).join('\n')).toMatch(/'r\.error' is possibly 'undefined'|Object is possibly 'undefined'/);
  });

  it('a series names its group and source as enums (SeriesGroup, RatesSource)', () => {
    expect(compile(LISTING_ENUMS)).toEqual([]);
  });

  it('reason is the named enum CarryReason, and group the enum SeriesGroup: a value outside them does not compile', () => {
    expect(compile(WRONG_REASON).join('\n')).toMatch(/"holidays"' is not assignable/);
    expect(compile(WRONG_GROUP).join('\n')).toMatch(/"fortnight"' is not assignable/);
  });

  it('give answers no invented samples: a rate is not "@example 12.5" (the recorded answers are the examples)', () => {
    const api = readFileSync(path.join(dir, 'api.ts'), 'utf8');
    const rate = api.slice(api.indexOf('        Rate: {'), api.indexOf('        CurrencyConversion: {'));
    expect(rate).toMatch(/value: string;/);
    expect(rate).not.toMatch(/@example/);
  });

  it('name the header components as they are sent (no invented suffixes)', () => {
    expect(compile(QUOTA_HEADER_NAMES)).toEqual([]);
    const headers = Object.keys(JSON.parse(readFileSync('schema/openapi.json', 'utf8')).components.headers as object);
    expect(headers.filter((name) => !/^[A-Z][A-Za-z]*(-[A-Z][A-Za-z]*)*$/.test(name) || /Optional/.test(name))).toEqual([]);
  });
});
