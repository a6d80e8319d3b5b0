import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient as heyApi } from '@hey-api/openapi-ts';
import { generate as orval } from 'orval';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Publication } from '../../src/domain/ecb';
import { createTestApp, type TestApp } from '../helpers/app';
import { tableRates } from '../helpers/table-rates';

/**
 * The clients orval (fetch client) and @hey-api/openapi-ts (its fetch client) generate from the
 * committed schema/openapi.json: each compiles under tsc --strict with a few lines a user would
 * write, and fetches the series export as JSON, CSV and NDJSON (an operation each) from the real listener.
 */

/** Made-up publications in the ECB's form (not real ECB data). */
const PUBLICATIONS: Publication[] = [
  { date: '2024-03-27', rates: { USD: '1.0830', JPY: '163.96' } },
  { date: '2024-03-28', rates: { USD: '1.0811', JPY: '163.45' } },
];
const QUERY = `{ start: '2024-03-27', end: '2024-03-28', symbols: 'USD,JPY' }`;
const CSV_LINES = ['date,base,USD,JPY', '2024-03-27,EUR,1.0830,163.96', '2024-03-28,EUR,1.0811,163.45'];

/**
 * orval 8.38: each format is an operation of its own, typed as its media type: JSON parsed,
 * CSV a string, NDJSON a bare Response (`stream`), read as it arrives.
 */
const ORVAL_CLIENT = `import { rateSeries, rateSeriesCsv, rateSeriesNdjson } from './orval/api';
const options = (key: string) => ({ headers: { Authorization: \`Bearer \${key}\` } });

export async function csv(key: string): Promise<string> {
  const r = await rateSeriesCsv(${QUERY}, options(key));
  if (r.status !== 200) throw new Error(\`status \${r.status}\`);
  return r.data;
}
export async function ndjson(key: string): Promise<string> {
  const r = await rateSeriesNdjson(${QUERY}, options(key));
  if (r.status !== 200) throw new Error(\`status \${r.status}\`);
  return r.stream.text();
}
export async function usd(key: string): Promise<string | undefined> {
  const r = await rateSeries(${QUERY}, options(key));
  if (r.status !== 200) throw new Error(\`status \${r.status}\`);
  return r.data.data.entries[0]?.rates['USD'];
}
`;

/**
 * @hey-api/openapi-ts 0.99: one media type per operation, parsed by the answer's Content-Type
 * (CSV as text, NDJSON as a Blob, as the document's `binary` says). Its auth callback is asked for
 * the one scheme of each operation, bearer: no signed link's query parameter is ever filled in.
 */
const HEY_API_CLIENT = `import { client } from './hey-api/client.gen';
import { rateSeries, rateSeriesCsv, rateSeriesNdjson } from './hey-api/sdk.gen';

function configure(origin: string, key: string) {
  client.setConfig({ baseUrl: origin, auth: () => key });
}
export async function usd(origin: string, key: string): Promise<string | undefined> {
  configure(origin, key);
  const r = await rateSeries({ query: ${QUERY} });
  return r.data?.data.entries[0]?.rates['USD'];
}
export async function csv(origin: string, key: string): Promise<string> {
  configure(origin, key);
  const r = await rateSeriesCsv({ query: ${QUERY}, throwOnError: true });
  return r.data;
}
export async function ndjson(origin: string, key: string): Promise<string> {
  configure(origin, key);
  const r = await rateSeriesNdjson({ query: ${QUERY}, throwOnError: true });
  return r.data.text();
}
`;
/** A group outside SeriesGroup: refused by hey-api's types. */
const HEY_API_WRONG_GROUP = `import { rateSeries } from './hey-api/sdk.gen';
export const s = rateSeries({ query: { start: '2024-03-27', group: 'fortnight' } });
`;

let t: TestApp;
let key: string;
let dir: string;
let diagnostics: Map<string, string[]>;

beforeAll(async () => {
  t = await createTestApp({}, { rates: tableRates(PUBLICATIONS) });
  key = await t.createKey('developer');
  dir = mkdtempSync(path.join(os.tmpdir(), 'openapi-clients-'));
  const input = path.resolve('schema/openapi.json');
  await orval(
    { input: { target: input }, output: { target: path.join(dir, 'orval/api.ts'), client: 'fetch', mode: 'single', baseUrl: t.origin } },
    undefined,
    { logLevel: 'error' },
  );
  await heyApi({ input, output: path.join(dir, 'hey-api'), logs: { level: 'silent' } });
  const files = Object.entries({
    'orval-client.ts': ORVAL_CLIENT,
    'hey-api-client.ts': HEY_API_CLIENT,
    'hey-api-wrong-group.ts': HEY_API_WRONG_GROUP,
  }).map(([name, text]) => {
    writeFileSync(path.join(dir, name), text);
    return path.join(dir, name);
  });
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    skipLibCheck: true,
    types: [],
  });
  diagnostics = new Map(files.map((file) => [path.basename(file), [] as string[]]));
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const file = d.file ? path.relative(dir, d.file.fileName) : '';
    const name = diagnostics.has(file) ? file : 'generated';
    diagnostics.set(name, [...(diagnostics.get(name) ?? []), `${file}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`]);
  }
});
afterAll(async () => {
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('clients generated from schema/openapi.json by orval and @hey-api/openapi-ts', () => {
  it('compile under tsc --strict, generated code included', () => {
    expect(diagnostics.get('generated') ?? []).toEqual([]);
  });

  it('make no method of the CORS preflight (browsers send it themselves) and send no OPTIONS request', () => {
    const generated = [path.join(dir, 'orval/api.ts'), path.join(dir, 'hey-api/sdk.gen.ts')].map((file) => readFileSync(file, 'utf8'));
    for (const text of generated) {
      expect(text).toContain('rateSeriesCsv');
      // The words may be in a description's comment; no function or type is named after it.
      expect(text).not.toMatch(/[a-z]Preflight\b/);
      expect(text).not.toMatch(/['"]OPTIONS['"]/);
    }
  });

  it('orval: JSON, CSV and NDJSON each an operation, typed as its media type, fetched with no cast', async () => {
    expect(diagnostics.get('orval-client.ts')).toEqual([]);
    const client = await import(path.join(dir, 'orval-client.ts'));
    expect((await client.csv(key)).split('\r\n').slice(0, 3)).toEqual(CSV_LINES);
    expect((await client.ndjson(key)).trimEnd().split('\n')).toHaveLength(2);
    expect(await client.usd(key)).toBe('1.0830');
  });

  it('hey-api: the series JSON answer is r.data.data, a group outside SeriesGroup is refused, CSV and NDJSON fetched with no cast', async () => {
    expect(diagnostics.get('hey-api-client.ts')).toEqual([]);
    expect(diagnostics.get('hey-api-wrong-group.ts')!.join('\n')).toMatch(/"fortnight"' is not assignable/);
    const client = await import(path.join(dir, 'hey-api-client.ts'));
    expect(await client.usd(t.origin, key)).toBe('1.0830');
    expect((await client.csv(t.origin, key)).split('\r\n').slice(0, 3)).toEqual(CSV_LINES);
    expect(JSON.parse((await client.ndjson(t.origin, key)).split('\n')[0])).toMatchObject({ base: 'EUR', rates: { USD: '1.0830' } });
  });
});
