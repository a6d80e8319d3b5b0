/**
 * No request holds the server: each expensive family of requests runs against the real server (its
 * own process, the real ECB history) while a probe sends a public `GET /v1/units/ft` every ~50 ms,
 * and a family fails when a probe waited more than PROBE_BOUND_MS. The bound is generous for a
 * shared machine yet far below the stalls it guards against (0.9 s to 16 s). The event loop's delay
 * under each family (p99 and max, from /metrics) and the probe's waits are printed, not asserted.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, startServer, type ServerProcess } from '../helpers/server-process';
import { sharedDataPresent } from '../helpers/shared-data';
import { fortyDigits, radianSpelling } from './stall-families';

const PROBE_BOUND_MS = 300;
const PROBE_EVERY_MS = 50;
const ZIP = path.resolve(process.cwd(), '../shared/ecb/eurofxref-hist.zip');
const PRESENT = sharedDataPresent(ZIP);

let server: ServerProcess;
let dataDir: string;
let freeKey: string;
let businessKey: string;
/** One key a caller: a key has at most EXPORTS_IN_FLIGHT (2) series answers in flight at once. */
let exportKeys: string[];

beforeAll(async () => {
  if (!PRESENT) return;
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'measurement-stall-'));
  const env = { DATA_DIR: dataDir };
  await admin(['rates', 'import', ZIP], env);
  freeKey = (await admin(['key', 'create', '--plan', 'free'], env)).key;
  businessKey = (await admin(['key', 'create', '--plan', 'business'], env)).key;
  exportKeys = [];
  for (let i = 0; i < 5; i += 1) exportKeys.push((await admin(['key', 'create', '--plan', 'business'], env)).key);
  server = await startServer({ ...env, ECB_BASE_URL: 'http://127.0.0.1:9/ecb', PUBLIC_RATE_LIMIT: '1000000', KEY_RATE_LIMIT: '1000000' });
});
afterAll(async () => {
  await server?.kill();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  text: string;
}

function send(method: string, url: string, options: SendOptions = {}): Promise<Answer> {
  return sendTo(server, method, url, options);
}

interface SendOptions {
  key?: string;
  body?: unknown;
  accept?: string;
}

async function sendTo(to: ServerProcess, method: string, url: string, options: SendOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.accept) headers.accept = options.accept;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${to.base}${url}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  return { status: res.status, text: await res.text() };
}

/** Runs `tasks` with at most `width` in flight; the answers in order. */
async function inPool<T>(width: number, tasks: (() => Promise<T>)[]): Promise<T[]> {
  const answers: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      answers[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, tasks.length) }, worker));
  return answers;
}

/** One gauge of the exposition, in milliseconds. */
const gaugeMs = (text: string, name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN) * 1000;

interface Guarded<T> {
  answers: T;
  probeMaxMs: number;
  probeP50Ms: number;
  probes: number;
  /** Growth of the server's resident memory over the family, in MB. */
  memoryGrowthMb: number;
}

/** One gauge of the exposition, as it is. */
const gauge = (text: string, name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);

/**
 * Runs a family while probing the public route; prints what the probe and the event loop saw.
 * The scrape before the family opens a fresh window of the server's event-loop delay.
 */
interface ProbeOptions {
  /** The server probed (the file's own by default). */
  on?: () => ServerProcess;
  /**
   * Send a probe every this many ms whether the one before has been answered or not, as a user's
   * requests arrive (the issue's probe: every 20 ms), so a stall counts for every probe it holds;
   * by default a probe is sent PROBE_EVERY_MS after the answer to the one before.
   */
  openLoopEveryMs?: number;
}

async function underProbe<T>(family: string, run: () => Promise<T>, options: ProbeOptions = {}): Promise<Guarded<T>> {
  const send = (method: string, url: string) => sendTo((options.on ?? (() => server))(), method, url);
  const rssBefore = gauge((await send('GET', '/metrics')).text, 'process_resident_memory_bytes');
  const waits: number[] = [];
  let running = true;
  const probe = async () => {
    const started = performance.now();
    const res = await send('GET', '/v1/units/ft');
    waits.push(performance.now() - started);
    expect(res.status, res.text).toBe(200);
  };
  const probing = (async () => {
    const inFlight: Promise<void>[] = [];
    while (running) {
      if (options.openLoopEveryMs === undefined) await probe();
      else inFlight.push(probe());
      await new Promise((resolve) => setTimeout(resolve, options.openLoopEveryMs ?? PROBE_EVERY_MS));
    }
    await Promise.all(inFlight);
  })();
  const started = performance.now();
  const answers = await run();
  const tookMs = performance.now() - started;
  running = false;
  await probing;
  const metrics = (await send('GET', '/metrics')).text;
  const sorted = [...waits].sort((a, b) => a - b);
  const probeMaxMs = sorted.at(-1) ?? 0;
  const probeP50Ms = sorted[sorted.length >> 1] ?? 0;
  const memoryGrowthMb = (gauge(metrics, 'process_resident_memory_bytes') - rssBefore) / 1e6;
  console.info(
    `[stall-guard] ${family}: took ${tookMs.toFixed(0)} ms; probe ${waits.length} sent, median ${probeP50Ms.toFixed(1)} ms, ` +
      `p99 ${sorted[Math.floor(sorted.length * 0.99)]?.toFixed(1)} ms, max ${probeMaxMs.toFixed(1)} ms; memory ${memoryGrowthMb >= 0 ? '+' : ''}${memoryGrowthMb.toFixed(0)} MB; ` +
      `event-loop delay p99 ${gaugeMs(metrics, 'nodejs_eventloop_lag_p99_seconds').toFixed(1)} ms, max ${gaugeMs(metrics, 'nodejs_eventloop_lag_max_seconds').toFixed(1)} ms`,
  );
  return { answers, probeMaxMs, probeP50Ms, probes: waits.length, memoryGrowthMb };
}

const spellings = (from: number, count: number) => Array.from({ length: count }, (_, i) => radianSpelling(from + i));
const codeOf = (text: string) => (JSON.parse(text) as { error?: { code: string } }).error?.code;

// A family that fails runs once more: a stall the code causes repeats on the second run, whereas one
// the shared machine's scheduler causes (another process on both cores) rarely does.
describe.skipIf(!PRESENT)(`no family of requests holds a public probe past ${PROBE_BOUND_MS} ms`, { retry: 1 }, () => {
  it('unit expressions at the exponent bound, each spelled differently', async () => {
    const urls = spellings(0, 300).map((from) => `/v1/convert?value=1&from=${encodeURIComponent(from)}&to=kg`);
    const { answers, probeMaxMs, probes } = await underProbe('expressions', () =>
      inPool(
        6,
        urls.map((url) => () => send('GET', url, { key: freeKey })),
      ),
    );
    for (const answer of answers) expect(codeOf(answer.text), answer.text).toBe('INCOMPATIBLE_UNITS');
    expect(probes).toBeGreaterThan(0);
    expect(probeMaxMs).toBeLessThan(PROBE_BOUND_MS);
  });

  it('two batches of 1,000 of them from a free key', async () => {
    const batch = (from: number) => ({ items: spellings(from, 1000).map((spelling) => ({ value: '1', from: spelling, to: 'kg' })) });
    const { answers, probeMaxMs } = await underProbe('batches', () =>
      Promise.all([1000, 2000].map((from) => send('POST', '/v1/batch', { key: freeKey, body: batch(from) }))),
    );
    for (const answer of answers) {
      expect(answer.status, answer.text.slice(0, 300)).toBe(200);
      expect(JSON.parse(answer.text).data).toMatchObject({ succeeded: 0, failed: 1000 });
    }
    expect(probeMaxMs).toBeLessThan(PROBE_BOUND_MS);
  });

  it('GraphQL: 50 convert aliases, and a batch field of 200 items', async () => {
    const aliases = spellings(3000, 50).map(
      (from, i) => `c${i}: convert(value: "1", from: ${JSON.stringify(from)}, to: "kg") { result { value } }`,
    );
    const items = spellings(3050, 200).map((from) => ({ value: '1', from, to: 'kg' }));
    const batchQuery = 'query($items: [BatchItemInput!]!) { batch(items: $items) { succeeded failed } }';
    const { answers, probeMaxMs } = await underProbe('graphql', () =>
      Promise.all([
        send('POST', '/graphql', { key: freeKey, body: { query: `{ ${aliases.join(' ')} }` } }),
        send('POST', '/graphql', { key: freeKey, body: { query: batchQuery, variables: { items } } }),
      ]),
    );
    const [aliased, batched] = answers.map((answer) => JSON.parse(answer.text));
    expect(aliased.errors).toHaveLength(50);
    expect(aliased.errors.every((e: { extensions: { code: string } }) => e.extensions.code === 'INCOMPATIBLE_UNITS')).toBe(true);
    expect(batched.data.batch).toEqual({ succeeded: 0, failed: 200 });
    expect(probeMaxMs).toBeLessThan(PROBE_BOUND_MS);
  });

  it('five concurrent 10-year CSV exports of every currency against non-euro bases', async () => {
    const bases = ['USD', 'JPY', 'GBP', 'ISK', 'CHF'];
    const url = (base: string) => `/v1/currency/rates/series?start=2014-01-01&end=2023-12-31&base=${base}`;
    const { answers, probeMaxMs } = await underProbe('exports', () =>
      Promise.all(bases.map((base, i) => send('GET', url(base), { key: exportKeys[i], accept: 'text/csv' }))),
    );
    for (const answer of answers) {
      expect(answer.status, answer.text.slice(0, 300)).toBe(200);
      expect(answer.text.length).toBeGreaterThan(500_000);
    }
    expect(probeMaxMs).toBeLessThan(PROBE_BOUND_MS);
  });

  it('large amounts: a batch of 1,000 conversions of 40-digit values, and 40-digit currency amounts', async () => {
    const pairs = [
      ['m', 'ft'],
      ['m^3/s', 'ft^3/min'],
      ['USD', 'JPY'],
      ['EUR/kWh', 'ISK/MWh'],
    ];
    const items = Array.from({ length: 1000 }, (_, i) => ({ value: fortyDigits(i), from: pairs[i % 4]![0]!, to: pairs[i % 4]![1]! }));
    const amounts = Array.from({ length: 40 }, (_, i) => `/v1/currency/rates?base=ISK&amount=${fortyDigits(i)}`);
    const { answers, probeMaxMs } = await underProbe('large amounts', () =>
      Promise.all([
        send('POST', '/v1/batch', { key: businessKey, body: { items } }),
        inPool(
          4,
          amounts.map((url) => () => send('GET', url, { key: businessKey })),
        ),
      ]),
    );
    const [batch, rates] = answers;
    expect(batch.status, batch.text.slice(0, 300)).toBe(200);
    expect(JSON.parse(batch.text).data).toMatchObject({ succeeded: 1000, failed: 0 });
    for (const answer of rates) expect(answer.status, answer.text.slice(0, 300)).toBe(200);
    expect(probeMaxMs).toBeLessThan(PROBE_BOUND_MS);
  });

  it('long symbol lists: rates and weekly series naming every currency quoted', async () => {
    const latest = JSON.parse((await send('GET', '/v1/currency/rates/latest')).text) as { data: { rates: Record<string, string> } };
    const symbols = Object.keys(latest.data.rates).join(',');
    const rates = Array.from({ length: 40 }, (_, i) => `/v1/currency/rates?base=GBP&symbols=${symbols}&amount=${fortyDigits(i)}`);
    const series = ['USD', 'CHF', 'JPY'].map(
      (base) => `/v1/currency/rates/series?start=2019-01-01&end=2023-12-31&base=${base}&group=week&symbols=${symbols}`,
    );
    const { answers, probeMaxMs } = await underProbe('symbol lists', () =>
      inPool(
        5,
        [...rates.map((url) => [url, businessKey] as const), ...series.map((url, i) => [url, exportKeys[i]!] as const)].map(
          ([url, key]) =>
            () =>
              send('GET', url, { key }),
        ),
      ),
    );
    for (const answer of answers) expect(answer.status, answer.text.slice(0, 300)).toBe(200);
    expect(probeMaxMs).toBeLessThan(PROBE_BOUND_MS);
  });
});

/**
 * The same probe against a server with the default per-key limit (KEY_RATE_LIMIT 50 a second), where
 * a document's price (src/graphql/price.ts) is what holds a free key back: 990 aliases of the units
 * list (about 150,000 values, 2.9 MB) cost 990 requests, over the whole limit, and a document of 45
 * aliases costs 45. Four loops send the large one and two the small one, by POST, then by a
 * persisted document's hash on GET, while a probe is sent every 20 ms (open loop: a stall holds
 * every probe sent during it); the probe's median must stay under PROBE_BOUND_MS, the server's
 * memory within MEMORY_BOUND_MB and the small documents answered within what the limit buys.
 */
const MEMORY_BOUND_MB = 100;
const FAMILY_MS = 4000;
const documentOf = (n: number) => `{${Array.from({ length: n }, (_, i) => `a${i}:units{id}`).join(' ')}}`;
const HUGE = documentOf(990);
const SMALL = documentOf(45);
const persistedOf = (query: string) => ({ persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(query).digest('hex') } });

describe.skipIf(!PRESENT)('documents of public fields from a free key, at the default per-key limit', { retry: 1 }, () => {
  let priced: ServerProcess;
  beforeAll(async () => {
    if (!PRESENT) return;
    priced = await startServer({ DATA_DIR: dataDir, ECB_BASE_URL: 'http://127.0.0.1:9/ecb', PUBLIC_RATE_LIMIT: '1000000' });
  });
  afterAll(async () => {
    await priced?.kill();
  });

  /** Sends one request again and again for FAMILY_MS; how each was answered (status and code) and the requests each was charged. */
  const loop = async (request: () => Promise<Answer>) => {
    const outcomes: { outcome: string; charged: number }[] = [];
    const until = performance.now() + FAMILY_MS;
    while (performance.now() < until) {
      const answer = await request();
      const body = JSON.parse(answer.text) as {
        data?: unknown;
        errors?: { extensions: { code: string } }[];
        extensions?: { cost?: { requests: number } };
      };
      const outcome = body.data ? `${answer.status} data` : `${answer.status} ${body.errors?.[0]?.extensions.code}`;
      outcomes.push({ outcome, charged: body.extensions?.cost?.requests ?? 0 });
    }
    return outcomes;
  };

  /** Four loops of the huge document and two of the small one; prints what was answered and charged, a second. */
  const family = async (name: string, huge: () => Promise<Answer>, small: () => Promise<Answer>) => {
    const loops = () => Promise.all([...[1, 2, 3, 4].map(() => loop(huge)), ...[1, 2].map(() => loop(small))]);
    const guarded = await underProbe(name, loops, { on: () => priced, openLoopEveryMs: 20 });
    const all = guarded.answers.flat();
    const tally = new Map<string, number>();
    for (const { outcome } of all) tally.set(outcome, (tally.get(outcome) ?? 0) + 1);
    const perSecond = (n: number) => ((n * 1000) / FAMILY_MS).toFixed(1);
    console.info(
      `[stall-guard] ${name}: a second, ${[...tally].map(([outcome, n]) => `${perSecond(n)} × ${outcome}`).join(', ')}; ` +
        `the answered documents charged ${perSecond(all.reduce((sum, { outcome, charged }) => sum + (outcome.endsWith('data') ? charged : 0), 0))} requests a second`,
    );
    return { ...guarded, served: all.filter(({ outcome }) => outcome.endsWith('data')).length };
  };

  const post = (query: string, extensions?: object) =>
    sendTo(priced, 'POST', '/graphql', { key: freeKey, body: extensions ? { query, extensions } : { query } });

  it('public-field documents: 990 aliases of the units list by POST', async () => {
    const { probeP50Ms, memoryGrowthMb, served } = await family(
      'public-field documents',
      () => post(HUGE),
      () => post(SMALL),
    );
    expect(probeP50Ms).toBeLessThan(PROBE_BOUND_MS);
    expect(memoryGrowthMb).toBeLessThan(MEMORY_BOUND_MB);
    // 50 requests a second buy one small document a second at most (and the requests the large ones spend first).
    expect(served).toBeLessThanOrEqual(FAMILY_MS / 1000 + 2);
  });

  it('persisted GETs: the same documents by their hash', async () => {
    // Registered by a POST of the document with its hash, in a fresh window; one over the whole limit never runs, so is never registered.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const hugeRegistered = await post(HUGE, persistedOf(HUGE));
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(JSON.parse((await post(SMALL, persistedOf(SMALL))).text).data).toBeDefined();
    const byHash = (query: string) => () =>
      sendTo(priced, 'GET', `/graphql?extensions=${encodeURIComponent(JSON.stringify(persistedOf(query)))}`, { key: freeKey });
    const { probeP50Ms, memoryGrowthMb, served } = await family('persisted GETs', byHash(HUGE), byHash(SMALL));
    expect(probeP50Ms).toBeLessThan(PROBE_BOUND_MS);
    expect(memoryGrowthMb).toBeLessThan(MEMORY_BOUND_MB);
    expect(served).toBeLessThanOrEqual(FAMILY_MS / 1000 + 2);
    expect(JSON.parse(hugeRegistered.text).errors?.[0]?.extensions.code).toBe('INVALID_REQUEST');
  });
});
