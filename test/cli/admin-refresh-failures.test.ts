import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin';
import { loadConfig } from '../../src/config';
import { openStore } from '../../src/data/open-store';
import { createRatesService } from '../../src/data/rates';
import type { AccountStore } from '../../src/services/account-store';
import { historyZip, serve, startFakeEcb, status, hang, type FakeEcb, type Handler } from '../data/rates/helpers';
import { createTestApp } from '../helpers/app';
import { built } from '../helpers/built';

let dir: string;
let store: AccountStore;
let ecb: FakeEcb;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'admin-refresh-'));
  store = openStore(loadConfig({ DATA_DIR: dir }));
  ecb = await startFakeEcb();
});
afterEach(async () => {
  await ecb.close();
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Headers at once, then one byte every 50 ms, never finishing. */
const trickle: Handler = (_req, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/xml' });
  const timer = setInterval(() => res.write(' '), 50);
  res.on('close', () => clearInterval(timer));
};

/** A URL on a port nothing listens on: connections are refused. */
async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/stats/eurofxref`;
}

const TRIES = 3;

describe('rates refresh against a failing ECB, in-process with short timeouts', () => {
  it.each([
    ['refuses connections', undefined, /ECONNREFUSED/],
    ['answers 500', status(500), /HTTP 500/],
    ['accepts and never answers', hang, /no response within 200 ms/],
    ['trickles its body forever', trickle, /not complete within 400 ms/],
  ] as const)('an ECB that %s: exit 1, one JSON line on stderr, after every try', async (_, handler, message) => {
    if (handler) ecb.route('eurofxref-hist.zip', handler);
    const config = loadConfig({ DATA_DIR: dir, ECB_BASE_URL: handler ? ecb.url : await refusedUrl() });
    let stdout = '';
    let stderr = '';
    const code = await runAdmin(['rates', 'refresh'], {
      config,
      store,
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: (s: string) => (stderr += s) },
      rates: () =>
        createRatesService({
          config,
          logger: pino({ level: 'silent' }),
          tuning: { tries: TRIES, retryBaseDelayMs: 5, connectTimeoutMs: 200, fileTimeoutMs: 400, historyTimeoutMs: 400 },
        }),
    });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    const lines = stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toEqual({ error: { code: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(message) } });
    if (handler) expect(ecb.count('eurofxref-hist.zip')).toBe(TRIES);
  });
});

/** scripts/admin.ts as its own process (default tuning: 3 tries, 1 s then 2 s pauses, jittered). */
function adminProcess(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [built('admin'), ...args], { env: { PATH: process.env.PATH, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('scripts/admin.ts rates refresh, a separate process', () => {
  it('waits for its retries, then exits 1 with one JSON line (an unreachable ECB)', async () => {
    const r = await adminProcess(['rates', 'refresh'], { DATA_DIR: dir, ECB_BASE_URL: await refusedUrl() });
    expect(r).toMatchObject({ code: 1, stdout: '' });
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(r.stderr).error).toEqual({ code: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/ECONNREFUSED/) });
  });

  it("records the failure where a running server's health reads it", async () => {
    // The "server": a rates service on the same DATA_DIR, current at 10:00 Berlin on a Tuesday
    // (nothing due before 16:00), fed once by a working ECB.
    const good = await startFakeEcb();
    good.route('eurofxref-hist.zip', serve(historyZip(), { type: 'application/zip' }));
    const serverConfig = loadConfig({ DATA_DIR: dir, ECB_BASE_URL: good.url });
    const rates = createRatesService({
      config: serverConfig,
      logger: pino({ level: 'silent' }),
      clock: () => new Date('2026-04-14T08:00:00Z'),
      tuning: { syncIntervalMs: 25 },
    });
    const t = await createTestApp({}, { rates });
    try {
      await rates.start();
      const health = async () => (await t.call('GET', '/v1/health')).body.data;
      for (let i = 0; i < 200 && (await health()).rates.fetchedAt === null; i++) await new Promise((r) => setTimeout(r, 25));
      expect((await health()).rates).toMatchObject({ date: '2026-04-13', lastError: null });

      ecb.route('eurofxref-hist.zip', status(500));
      const r = await adminProcess(['rates', 'refresh'], { DATA_DIR: dir, ECB_BASE_URL: ecb.url });
      expect(r.code).toBe(1);
      expect(ecb.count('eurofxref-hist.zip')).toBe(3);

      for (let i = 0; i < 200 && (await health()).rates.lastError === null; i++) await new Promise((r) => setTimeout(r, 25));
      expect((await health()).rates.lastError).toBe(`GET ${ecb.url}/eurofxref-hist.zip: HTTP 500`);
    } finally {
      await rates.stop();
      await t.close();
      await good.close();
    }
  });
});
