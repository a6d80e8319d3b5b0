/**
 * The server side of scripts/bench.ts, run as a child process: the real app and the plain
 * node:http baseline listen on loopback here, so autocannon (in the parent) gets its own core
 * instead of taking turns with the servers on one event loop. Both servers share this process but
 * are loaded one at a time, so they never compete.
 */
import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { openStore } from '../../src/data/open-store';
import { createRateLimiters, type RateLimiters } from '../../src/http/rate-limit';
import { createLogger } from '../../src/logger';
import type { RatesReader } from '../../src/services/rates';
import { CONVERT_PATH, type ServersReady } from './targets';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'measurement-bench-'));
const config = loadConfig({
  DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  HOST: '127.0.0.1',
  // The rate limits are set far above what a run sends: this measures the pipeline, not the limiter.
  PUBLIC_RATE_LIMIT: '1000000',
  KEY_RATE_LIMIT: '1000000',
});
const store = openStore(config);
// Unit conversions never read rates: an empty reader keeps the run off the network (no ECB fetch).
const noRates: RatesReader = {
  latest: () => undefined,
  resolveDate: () => undefined,
  loadPublications: async (dates) => dates.map(() => undefined),
  knownCurrencies: () => new Set(['EUR']),
  status: () => ({ date: null, fetchedAt: null, stale: true, lastError: null }),
  latestMaxAgeSeconds: () => 0,
};
const servers: Server[] = [];
let limiters: RateLimiters | undefined;

async function listen(server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function start(): Promise<ServersReady> {
  // In-memory counters, as one instance without REDIS_URL runs.
  limiters = await createRateLimiters({ publicPerMinute: config.publicRateLimit, keyPerSecond: config.keyRateLimit });
  const { yoga } = createApp({ config, store, rates: noRates, limiters, logger: createLogger('silent') });
  const account = await store.createAccount({ plan: 'business' });
  const { key } = await store.createKey(account.id, 'test');
  const appPort = await listen(createServer(yoga));

  // The baseline serves the app's own bytes, so the two rows differ only in the work per request.
  const sample = await fetch(`http://127.0.0.1:${appPort}${CONVERT_PATH}`, { headers: { authorization: `Bearer ${key}` } });
  const body = Buffer.from(await sample.arrayBuffer());
  if (sample.status !== 200) throw new Error(`GET ${CONVERT_PATH} answered ${sample.status}: ${body.toString()}`);
  const contentType = sample.headers.get('content-type') ?? 'application/json';
  const baselinePort = await listen(
    createServer((_request, response) => {
      response.writeHead(200, { 'content-type': contentType, 'content-length': body.length });
      response.end(body);
    }),
  );
  return { appPort, baselinePort, key, convertBody: body.toString('utf8'), contentType };
}

let stopping = false;
async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
  await limiters?.close();
  await store.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  // process.exit still writes a --cpu-prof profile.
  process.exit(code);
}

process.on('message', (message) => {
  if (message === 'stop') void stop(0);
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
