/**
 * The comparison servers of scripts/bench.ts, in a child process of their own: the plain node:http
 * baseline, the reference (node:http sending the app's whole answer) and the Express peer. They are
 * kept out of the app's process (servers.ts) because a server is measured with what its process
 * holds: sharing the app's process, with the whole ECB history imported into it, the bare handler
 * spent about 30 % more CPU per request than on its own (docs/benchmarks.md, 2026-11-23 07:20Z), which
 * flattered every ratio to it. This process imports nothing of src/. Its one argument is a
 * BareServersOptions JSON: the app's answer to GET /v1/convert, which the two bare handlers repeat.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { closeAll, listen as listenOn, sendCpu } from './child';
import { expressPeer } from './express-peer';
import type { BareServersOptions, BareServersReady } from './targets';

const options = JSON.parse(process.argv[2] ?? '{}') as BareServersOptions;
const servers: Server[] = [];

const listen = (server: Server) => listenOn(servers, server);

async function start(): Promise<BareServersReady> {
  const body = Buffer.from(options.convertBody, 'utf8');
  const { contentType } = options;
  const baselinePort = await listen(
    createServer((_request, response) => {
      response.writeHead(200, { 'content-type': contentType, 'content-length': body.length });
      response.end(body);
    }),
  );
  // The app's answer whole: its headers as it sent them, with a fresh request id per request as the
  // app makes (the counters' digits vary, their length does not). The flat [name, value, …] list is
  // built once and copied per request: rebuilding it with flatMap on each request cost this row about
  // 4 µs of CPU a request, a fifth of it, which no handler sending these bytes has to spend
  // (docs/benchmarks.md, 2026-11-25).
  const answerHeaders = options.answerHeaders.flat();
  const requestIdPair = options.answerHeaders.findIndex(([name]) => name === 'x-request-id');
  const requestIdAt = requestIdPair < 0 ? -1 : requestIdPair * 2 + 1;
  const answerPort = await listen(
    createServer((_request, response) => {
      const headers = answerHeaders.slice();
      if (requestIdAt >= 0) headers[requestIdAt] = randomUUID();
      response.writeHead(200, headers);
      response.end(body);
    }),
  );
  const expressPort = await listen(createServer(expressPeer()));
  return { baselinePort, answerPort, expressPort };
}

let stopping = false;
function stop(code: number): void {
  if (stopping) return;
  stopping = true;
  closeAll(servers);
  // process.exit still writes a --cpu-prof profile.
  process.exit(code);
}

process.on('message', (message) => {
  if (message === 'stop') stop(0);
  // Around each measured load: the CPU this process spent, whatever else runs on the machine.
  if (message === 'cpu') sendCpu();
});
// The parent died without saying stop: do not linger holding ports.
process.on('disconnect', () => stop(0));
start().then(
  (ready) => process.send?.({ ready }),
  (error: unknown) => {
    process.send?.({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    stop(1);
  },
);
