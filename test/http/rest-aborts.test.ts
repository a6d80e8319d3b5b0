import type { Server } from 'node:http';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { openStore } from '../../src/data/open-store';
import { createRateLimiters } from '../../src/http/limits/rate-limit';
import { createHttpServer } from '../../src/http/front/node-server';
import { parseTrustProxy } from '../../src/domain/client-ip';
import type { AccountStore } from '../../src/services/account-store';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MADE_UP_PUBLICATIONS, tableRates } from '../helpers/table-rates';

/**
 * A client that hangs up half-way through its body is no fault of the server's: the front
 * (REST POST routes and POST /graphql) logs no error for it and keeps answering others.
 */
let server: Server;
let port: number;
let store: AccountStore;
let dataDir: string;
const lines: { level: number; msg: string }[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'measurement-aborts-'));
  const config = loadConfig({ DATA_DIR: dataDir });
  store = openStore(config);
  const limiters = await createRateLimiters({ publicPerMinute: 1000, keyPerSecond: 1000 });
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as { level: number; msg: string });
      done();
    },
  });
  const logger = pino({ level: 'info' }, sink);
  const app = createApp({ config, store, logger, limiters, rates: tableRates(MADE_UP_PUBLICATIONS) });
  expect(app.front.edge).toBeDefined();
  // Behind the node:http front main.ts runs, whose own log lines count too.
  server = createHttpServer({ front: app.front, logger, metricsAccess: { mode: 'local' }, trust: parseTrustProxy(undefined) });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Declares a 100-byte JSON body, sends 10 bytes of it, and closes the connection. */
function hangUpMidBody(target: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`POST ${target} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"query":`);
      setTimeout(() => socket.destroy(), 50);
    });
    socket.on('close', () => resolve());
    socket.on('error', reject);
  });
}

describe('a client that hangs up half-way through its body', () => {
  it.each(['/graphql', '/v1/convert', '/v1/batch'])('on POST %s: no error logged, and the server still answers', async (target) => {
    const before = lines.length;
    await hangUpMidBody(target);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lines.slice(before).filter((line) => line.level >= 50)).toEqual([]);
    const answer = await fetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"query":"{ health { status } }"}',
    });
    expect([answer.status, await answer.json()]).toEqual([200, { data: { health: { status: 'ok' } }, extensions: expect.anything() }]);
  });
});
