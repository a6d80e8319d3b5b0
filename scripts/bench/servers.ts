/**
 * The app's side of scripts/bench.ts, run as a child process: the real app listens on loopback here,
 * so autocannon (in the parent) gets its own core instead of taking turns with the server on one
 * event loop. The baseline, the reference and the Express peer run in another child
 * (bare-servers.ts), so that none of them shares what this process holds (the app, the ECB history).
 * Its one argument is a ServersOptions JSON.
 */
import fs from 'node:fs';
import type { Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import { createApp, type App } from '../../src/app';
import { loadConfig } from '../../src/config';
import { migrateDatabase, openStore } from '../../src/data/open-store';
import { openPersistedDocuments } from '../../src/data/persisted/open-persisted-documents';
import { createRatesService } from '../../src/data/rates';
import { createSourceRatesService } from '../../src/data/sources';
import { parseTrustProxy } from '../../src/domain/client-ip';
import { createHttpServer } from '../../src/http/front/node-server';
import { createRateLimiters, type RateLimiters } from '../../src/http/limits/rate-limit';
import { createLogger } from '../../src/logger';
import { createMetrics } from '../../src/metrics';
import type { RatesService } from '../../src/services/currency/rates';
import type { PersistedDocuments } from '../../src/services/persisted-documents';
import { closeAll, listen as listenOn, sendCpu } from './child';
import { memoryNow, type MemoryReport } from './memory';
import { TWO_SOURCE_FEEDS } from './currency';
import { CONVERT_PATH, type AppServersReady, type ServersOptions } from './targets';
import { NO_RATES } from './no-rates';
import { checkSameGraphQLBodies, listenYogaJit } from './yoga-jit';

const options = JSON.parse(process.argv[2] ?? '{}') as ServersOptions;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'measurement-bench-'));
const config = loadConfig({
  DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  HOST: '127.0.0.1',
  // The rate limits are set far above what a run sends: this measures the pipeline, not the limiter.
  PUBLIC_RATE_LIMIT: '1000000',
  KEY_RATE_LIMIT: '1000000',
  // Every connection of the series rows has an export in flight with the one key.
  EXPORTS_IN_FLIGHT: '1000',
  // main.ts's path: the rates service imports RATES_FILE when it starts.
  ...(options.ratesFile ? { RATES_FILE: options.ratesFile } : {}),
  // The production configuration (configs.ts): a database made for this run, this run's Redis prefix.
  ...(options.connection?.databaseUrl ? { DATABASE_URL: options.connection.databaseUrl } : {}),
  ...(options.connection?.redisUrl ? { REDIS_URL: options.connection.redisUrl } : {}),
});
const logger = createLogger('silent');
const store = openStore(config);
// One registry for the app, the rates service and the node:http front, as in main.ts.
const metrics = createMetrics();
// The ECB refresh start() launches in the background fails at once instead of reaching the network.
const offline: typeof fetch = () => Promise.reject(new TypeError('the bench runs offline'));
const ratesService: RatesService | undefined = options.ratesFile
  ? createRatesService({ config, logger, fetch: offline, tuning: { tries: 1 }, onFetchFailure: () => metrics.ecbFetchFailed() })
  : undefined;
// The currency-two-source row: the NBP's and the NBU's recorded files, imported at start; never fetched.
const sourcesService = options.feedsDir ? createSourceRatesService({ config, logger, fetch: offline, tuning: { tries: 1 } }) : undefined;
const servers: Server[] = [];
const trust = parseTrustProxy(config.trustProxy);
let limiters: RateLimiters | undefined;

const listen = (server: Server) => listenOn(servers, server);

async function businessKey(): Promise<string> {
  const account = await store.createAccount({ plan: 'business' });
  return (await store.createKey(account.id, 'test')).key;
}

const SETTLE_MS = 2000;

/** Headers node:http writes itself on every answer (fetch also shows them). */
const NODE_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

/** Starts the rates service with RATES_FILE set, as main.ts does, and measures the process around it. */
async function loadHistory(service: RatesService, file: string): Promise<MemoryReport> {
  const before = memoryNow();
  const started = performance.now();
  await service.start();
  const importSeconds = (performance.now() - started) / 1000;
  // start() leaves work in flight (the background refresh, the cache check) that keeps the
  // import's objects reachable for a moment: measured at once, heap used was up to 17 MiB higher.
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const after = memoryNow();
  if (options.heapSnapshot) v8.writeHeapSnapshot(options.heapSnapshot);
  const { date: newest, lastError } = service.status();
  const first = service.resolveDate('1999-01-04') ?? null;
  if (newest === null || first === null) throw new Error(`RATES_FILE ${file} was not loaded: ${lastError ?? 'no publication held'}`);
  return { file, first, newest, importSeconds, before, after };
}

/** Imports every file of the two-source row's feeds, as `admin rates import --source` does, then serves them. */
async function loadFeeds(feedsDir: string): Promise<void> {
  if (!sourcesService) return;
  for (const source of TWO_SOURCE_FEEDS)
    for (const file of fs.readdirSync(path.join(feedsDir, source)))
      await sourcesService.importFile(source, path.join(feedsDir, source, file));
  await sourcesService.start();
}

async function start(): Promise<AppServersReady> {
  // As main.ts: the schema first (PostgreSQL connects lazily; SQLite migrated on open).
  if (config.database.kind === 'postgres') await migrateDatabase(config);
  // In-memory counters, as one instance without REDIS_URL runs; with it, shared counters in Redis.
  limiters = await createRateLimiters({
    publicPerMinute: config.publicRateLimit,
    keyPerSecond: config.keyRateLimit,
    redisUrl: config.redisUrl,
    ...(options.connection?.redisPrefix ? { keyPrefix: options.connection.redisPrefix } : {}),
    // Figures counted in memory would not be the production configuration's: say so on stderr.
    onRedisDown: (error) => process.stderr.write(`bench: Redis (TEST_REDIS_URL) unavailable, counting in memory: ${error.message}\n`),
  });
  if (config.redisUrl && limiters.countedIn() !== 'redis')
    throw new Error('Redis (TEST_REDIS_URL) did not answer: the run would count in memory');
  // The app's own persisted documents (createApp's default), made here to hand the Yoga row's handler too.
  const persistedDocuments = openPersistedDocuments(config, { shared: false });
  if (options.feedsDir) await loadFeeds(options.feedsDir);
  const app = createApp({
    config,
    store,
    rates: ratesService ?? NO_RATES,
    ...(sourcesService ? { sources: sourcesService } : {}),
    limiters,
    logger,
    metrics,
    persistedDocuments,
  });
  const key = await businessKey();
  const batchKeys: string[] = [];
  for (let i = 0; i < options.batchAccounts; i += 1) batchKeys.push(await businessKey());
  // What npm start serves: main.ts's node:http front (the edge first, per-request metrics,
  // GET /metrics, the contract's parser-level refusals) around Yoga, with the same metrics object.
  const appPort = await listen(createHttpServer({ front: app.front, logger, metricsAccess: config.metrics, trust }));
  const yogaJit = options.yogaJit ? await yogaJitRow(app, persistedDocuments, appPort) : undefined;

  // The baseline serves the app's own bytes, so the two rows differ only in the work per request.
  const sample = await fetch(`http://127.0.0.1:${appPort}${CONVERT_PATH}`, { headers: { authorization: `Bearer ${key}` } });
  const body = await sample.text();
  if (sample.status !== 200) throw new Error(`GET ${CONVERT_PATH} answered ${sample.status}: ${body}`);
  const contentType = sample.headers.get('content-type') ?? 'application/json';
  const answerHeaders = [...sample.headers].filter(([name]) => !NODE_HEADERS.has(name));
  const memory: MemoryReport =
    ratesService && options.ratesFile
      ? await loadHistory(ratesService, options.ratesFile)
      : { skipped: options.memorySkipped ?? 'not asked for' };
  const currencyFiles = options.ratesFile
    ? { ratesFile: options.ratesFile, ...(options.feedsDir ? { feedsDir: options.feedsDir } : {}) }
    : undefined;
  return {
    appPort,
    key,
    batchKeys,
    convertBody: body,
    contentType,
    answerHeaders,
    memory,
    ...(yogaJit ? { yogaJit } : {}),
    ...(currencyFiles ? { currencyFiles } : {}),
  };
}

/** The graphql-yoga-jit row's front (yoga-jit.ts), once it answered the bench's request as the executor does; its port and key. */
async function yogaJitRow(app: App, persistedDocuments: PersistedDocuments, appPort: number): Promise<{ port: number; key: string }> {
  const clock = () => new Date();
  const port = await listenYogaJit({ app, config, logger, limiters: limiters!, clock, persistedDocuments }, trust, listen);
  const twins = [await businessKey(), await businessKey()] as const;
  await checkSameGraphQLBodies(appPort, port, twins);
  return { port, key: twins[1] };
}

let stopping = false;
async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  closeAll(servers);
  await ratesService?.stop();
  await sourcesService?.stop();
  await limiters?.close();
  await store.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  // process.exit still writes a --cpu-prof profile.
  process.exit(code);
}

process.on('message', (message) => {
  if (message === 'stop') void stop(0);
  // Asked once every load row has run: what the server holds after serving them.
  if (message === 'memory') process.send?.({ memory: memoryNow() });
  // Around each measured load: the CPU the servers spent, whatever else runs on the machine.
  if (message === 'cpu') sendCpu();
});
// The parent died without saying stop: do not linger holding ports and a temp dir.
process.on('disconnect', () => void stop(0));
start().then(
  (ready) => process.send?.({ ready }),
  (error: unknown) => {
    process.send?.({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    void stop(1);
  },
);
