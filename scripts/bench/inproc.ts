/**
 * In-process driver for the edge (its per-request costs without sockets or autocannon):
 * N requests through the app's node:http listener with fake req/res objects, sequentially. Under
 * `valgrind --tool=callgrind` the compiled bundle gives instruction counts, which do not move with
 * the machine's load but do move by about 2 % between runs of one build (V8 compiles on threads of
 * its own); without valgrind it prints µs of CPU per request: alternate builds to compare them.
 *
 *   npx esbuild scripts/bench/inproc.ts --bundle --platform=node --format=esm --packages=external --outfile=dist/bench/inproc.js
 *   node dist/bench/inproc.js rest 20000      # or: units 20000, batch 50
 *   INPROC_HTTP_SERVER=1 node dist/bench/inproc.js rest 20000   # through main.ts's node:http front
 *
 * INPROC_CONFIG=postgres+redis (or postgres, sqlite+redis; configs.ts) puts the account store on a
 * database of its own on TEST_DATABASE_URL and the rate limits on TEST_REDIS_URL: the CPU printed is
 * still this process's only, so the round trips cost their protocol work here and nothing else.
 *
 * By default the requests go straight to createApp's handler. With INPROC_HTTP_SERVER=1 they go
 * through the listener createHttpServer (src/http/node-server.ts) wraps around it, as in main.ts:
 * the request path and route label, the 'close' listener and the two request metrics per request.
 */
import fs from 'node:fs';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { migrateDatabase, openStore } from '../../src/data/open-store';
import { parseTrustProxy } from '../../src/domain/client-ip';
import { createHttpServer } from '../../src/http/node-server';
import { createRateLimiters } from '../../src/http/rate-limit';
import { createLogger } from '../../src/logger';
import { batchItems } from './batch';
import { configsFrom, connectConfig } from './configs';
import { NO_RATES } from './no-rates';
import { CONVERT_PATH } from './targets';

const [what = 'rest', countText = '5000', warmText] = process.argv.slice(2);
const count = Number(countText);
const warm = warmText === undefined ? Math.ceil(count / 5) : Number(warmText);


interface Answer {
  status: number;
  body: string;
}

function call(handler: (req: IncomingMessage, res: ServerResponse) => void, method: string, url: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve) => {
    const req = Readable.from(body === undefined ? [] : [Buffer.from(body)]) as unknown as IncomingMessage;
    Object.assign(req, { method, url, headers, socket: { remoteAddress: '127.0.0.1' } });
    let onClose: (() => void) | undefined;
    const res = {
      headersSent: false,
      statusCode: 200,
      writeHead(s: number) {
        res.statusCode = s;
        res.headersSent = true;
        return res;
      },
      end(b?: string | Buffer) {
        resolve({ status: res.statusCode, body: b === undefined ? '' : b.toString() });
        // node:http emits 'close' once the response is written; here, once it is ended.
        onClose?.();
      },
      // The node:http front's one listener per request (createHttpServer: the request metrics).
      once(event: string, listener: () => void) {
        if (event === 'close') onClose = listener;
        return res;
      },
    };
    handler(req, res as unknown as ServerResponse);
  });
}

/** The request listener of main.ts's node:http server (never listening): createHttpServer around the app's handler. */
function frontOf(app: ReturnType<typeof createApp>, config: ReturnType<typeof loadConfig>, logger: ReturnType<typeof createLogger>): RequestListener {
  const server = createHttpServer({ handler: app.yoga, edge: app.edge, logger, metrics: app.metrics, metricsAccess: config.metrics, trust: parseTrustProxy(config.trustProxy) });
  const [listener] = server.listeners('request') as RequestListener[];
  if (!listener) throw new Error('createHttpServer registered no request listener');
  return listener;
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'measurement-inproc-'));
  const bench = configsFrom({ configs: process.env.INPROC_CONFIG ?? 'sqlite' }, process.env)[0]!;
  const { connection, drop } = await connectConfig(bench, process.env);
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    PUBLIC_RATE_LIMIT: '1000000',
    KEY_RATE_LIMIT: '1000000',
    ...(connection.databaseUrl ? { DATABASE_URL: connection.databaseUrl } : {}),
  });
  if (connection.databaseUrl) await migrateDatabase(config);
  const store = openStore(config);
  const limiters = await createRateLimiters({
    publicPerMinute: config.publicRateLimit,
    keyPerSecond: config.keyRateLimit,
    ...(connection.redisUrl ? { redisUrl: connection.redisUrl, keyPrefix: connection.redisPrefix! } : {}),
  });
  const logger = createLogger('silent');
  const app = createApp({ config, store, rates: NO_RATES, limiters, logger });
  const handler = process.env.INPROC_HTTP_SERVER === '1' ? frontOf(app, config, logger) : app.handler;
  const keys: string[] = [];
  const accounts = what === 'batch' ? Math.ceil(((count + warm) * 1000) / 1_900_000) : 1;
  for (let i = 0; i < accounts; i += 1) {
    const account = await store.createAccount({ plan: 'business' });
    keys.push((await store.createKey(account.id, 'test')).key);
  }
  const body = JSON.stringify({ items: batchItems() });
  const once = (i: number) =>
    what === 'batch'
      ? call(handler, 'POST', '/v1/batch', { authorization: `Bearer ${keys[i % keys.length]}`, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }, body)
      : what === 'units'
        ? call(handler, 'GET', '/v1/units/meter', {})
        : call(handler, 'GET', CONVERT_PATH, { authorization: `Bearer ${keys[0]}` });
  const first = await once(0);
  if (first.status !== 200) throw new Error(`${first.status}: ${first.body.slice(0, 300)}`);
  if (process.env.INPROC_PRINT) console.log(first.body.slice(0, 400));
  for (let i = 0; i < warm; i += 1) await once(i);
  const start = process.cpuUsage();
  // Like autocannon's connections: this many requests in flight at once (so quota group commit groups).
  const inFlight = Number(process.env.INPROC_CONCURRENCY ?? 10);
  let next = 0;
  const chain = async () => {
    while (next < count) {
      const answer = await once(next++);
      if (answer.status !== 200) throw new Error(`${answer.status}: ${answer.body.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, chain));
  const used = process.cpuUsage(start);
  const via = process.env.INPROC_HTTP_SERVER === '1' ? ' (through createHttpServer)' : '';
  if (via) {
    // The front did its work: every request is in the metrics (the first, the warm-up, the measured).
    const exposition = await app.metrics.render();
    // Labels may hold braces (route="/v1/units/{unit}"): the sample is the line's last field.
    const counted = /^measurement_http_requests_total\{.*,status="200"\} (\d+)$/m.exec(exposition)?.[1];
    if (counted !== String(1 + warm + count)) throw new Error(`the metrics counted ${counted ?? 'nothing'}, not ${1 + warm + count} answers`);
  }
  console.log(`${what}${via} [${bench.name}]: ${count} requests, ${((used.user + used.system) / count).toFixed(1)} µs CPU per request`);
  await limiters.close();
  await store.close();
  await drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

await main();
