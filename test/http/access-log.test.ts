import type { Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { openStore } from '../../src/data/open-store';
import { createRateLimiters, type RateLimiters } from '../../src/http/limits/rate-limit';
import { createHttpServer } from '../../src/http/front/node-server';
import { parseTrustProxy } from '../../src/domain/client-ip';
import type { AccountStore } from '../../src/services/account-store';
import { MADE_UP_PUBLICATIONS, tableRates } from '../helpers/table-rates';

/** The app with REST_EXECUTION=sofa on a real node:http server, its log lines captured as parsed JSON. */
let server: Server;
let base: string;
/** The same app with REST_EXECUTION=direct (the default) on its own server. */
let directServer: Server;
let directBase: string;
let store: AccountStore;
let limiters: RateLimiters;
let dataDir: string;
const lines: Record<string, unknown>[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'measurement-log-'));
  const config = loadConfig({ DATA_DIR: dataDir });
  store = openStore(config);
  limiters = await createRateLimiters({ publicPerMinute: 1000, keyPerSecond: 1000 });
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const logger = pino({ level: 'info' }, sink);
  const { front } = createApp({
    config,
    store,
    logger,
    limiters,
    rates: tableRates(MADE_UP_PUBLICATIONS),
    clock: () => new Date('2024-04-03T12:00:00Z'),
  });
  // The same app with REST_EXECUTION=sofa: SOFA executes the routes.
  const off = createApp({
    config: { ...config, restExecution: 'sofa' },
    store,
    logger,
    limiters,
    rates: tableRates(MADE_UP_PUBLICATIONS),
    clock: () => new Date('2024-04-03T12:00:00Z'),
  });
  server = createHttpServer({ front: off.front, logger, metricsAccess: { mode: 'local' }, trust: parseTrustProxy(undefined) });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  directServer = createHttpServer({ front, logger, metricsAccess: { mode: 'local' }, trust: parseTrustProxy(undefined) });
  await new Promise<void>((resolve) => directServer.listen(0, '127.0.0.1', resolve));
  directBase = `http://127.0.0.1:${(directServer.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await new Promise((resolve) => directServer.close(resolve));
  await limiters.close();
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function loggedLineOf(response: Response): Promise<Record<string, unknown> | undefined> {
  await response.arrayBuffer();
  const requestId = response.headers.get('x-request-id');
  for (let i = 0; i < 100 && !lines.some((l) => l['requestId'] === requestId && l['msg'] === 'request'); i++)
    await new Promise((r) => setTimeout(r, 10));
  return lines.find((l) => l['requestId'] === requestId && l['msg'] === 'request');
}

async function loggedStatusOf(response: Response): Promise<unknown> {
  return (await loggedLineOf(response))?.['status'];
}

describe('the access log', () => {
  it('records a 304 Not Modified as 304, not as the 200 the handler first produced', async () => {
    const first = await fetch(`${base}/v1/currency/rates/latest`);
    expect(await loggedStatusOf(first)).toBe(200);
    const again = await fetch(`${base}/v1/currency/rates/latest`, { headers: { 'if-none-match': first.headers.get('etag')! } });
    expect(again.status).toBe(304);
    expect(await loggedStatusOf(again)).toBe(304);
  });

  it('records the status of an error answer as sent', async () => {
    const res = await fetch(`${base}/v1/nothing`);
    expect(res.status).toBe(404);
    expect(await loggedStatusOf(res)).toBe(404);
  });
});

describe('the error code in the access log', () => {
  const graphql = (origin: string, query: string) =>
    fetch(`${origin}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });

  it.each([
    ['REST_EXECUTION=sofa', () => base],
    ['REST_EXECUTION=direct', () => directBase],
  ])('names the code of a REST error, of a GraphQL error, and none on a success (%s)', async (_, origin) => {
    expect(await loggedLineOf(await fetch(`${origin()}/v1/units/furlongs`))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(await loggedLineOf(await fetch(`${origin()}/v1/convert?value=1&from=inch&to=foot`))).toMatchObject({
      status: 401,
      code: 'UNAUTHORIZED',
    });
    expect(await loggedLineOf(await graphql(origin(), '{ convert(value: "1", from: "inch", to: "foot") { category } }'))).toMatchObject({
      status: 200,
      code: 'UNAUTHORIZED',
    });
    expect(await loggedLineOf(await graphql(origin(), '{ nope }'))).toMatchObject({ code: 'INVALID_REQUEST' });
    const ok = await loggedLineOf(await fetch(`${origin()}/v1/categories`));
    expect(ok).toMatchObject({ status: 200 });
    expect(ok).not.toHaveProperty('code');
  });

  it('names the code of an error answered before any API step (unknown route, wrong method)', async () => {
    expect(await loggedLineOf(await fetch(`${base}/nothing/here`))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(await loggedLineOf(await fetch(`${directBase}/v1/categories`, { method: 'DELETE' }))).toMatchObject({
      status: 405,
      code: 'METHOD_NOT_ALLOWED',
    });
  });

  it('names the code of a GraphQL request refused before it runs, and of a page refused where it is made', async () => {
    const refused: Array<[RequestInit & { path?: string }, number, string]> = [
      [{ method: 'PUT' }, 405, 'METHOD_NOT_ALLOWED'],
      [{ method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
      [{ method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' }, 400, 'INVALID_REQUEST'],
      [
        { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: '{"query": 5}' },
        400,
        'INVALID_REQUEST',
      ],
      [{ path: '/graphql/assets/nothing.js' }, 404, 'NOT_FOUND'],
      [{ path: '/account/nothing' }, 404, 'NOT_FOUND'],
      [{ path: '/docs/nothing.css' }, 404, 'NOT_FOUND'],
    ];
    for (const [{ path: where = '/graphql', ...init }, status, code] of refused) {
      expect(await loggedLineOf(await fetch(`${directBase}${where}`, init)), `${init.method ?? 'GET'} ${where}`).toMatchObject({
        status,
        code,
      });
    }
  });

  it('names the code of a refused MCP request (no key, wrong method)', async () => {
    const mcp = (init: RequestInit) =>
      fetch(`${base}/mcp`, { headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, ...init });
    expect(await loggedLineOf(await mcp({ method: 'POST', body: '{}' }))).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(await loggedLineOf(await mcp({ method: 'GET' }))).toMatchObject({ status: 405, code: 'METHOD_NOT_ALLOWED' });
  });
});

describe('key secrecy in the log', () => {
  it('an expired key and a key in its grace are never written to any log line; the refusal is logged as KEY_EXPIRED', async () => {
    const account = await store.createAccount({ plan: 'free' });
    const expired = await store.createKey(account.id, 'test', '2024-04-03T11:00:00.000Z');
    const graced = await store.createKey(account.id, 'test');
    const rotated = await store.rotateKey(graced.record.id, '2024-04-03T13:00:00.000Z');
    for (const root of [base, directBase]) {
      const refused = await fetch(`${root}/v1/convert?value=1&from=mile&to=km`, { headers: { authorization: `Bearer ${expired.key}` } });
      expect(refused.status).toBe(401);
      expect((await loggedLineOf(refused))?.['code']).toBe('KEY_EXPIRED');
      const answered = await fetch(`${root}/v1/convert?value=1&from=mile&to=km`, { headers: { authorization: `Bearer ${graced.key}` } });
      expect(answered.status).toBe(200);
      expect(answered.headers.get('key-expires')).toBe('Wed, 03 Apr 2024 13:00:00 GMT');
      await loggedLineOf(answered);
    }
    const written = JSON.stringify(lines);
    for (const key of [expired.key, graced.key, rotated.key]) expect(written).not.toContain(key.slice(9));
  });
});
