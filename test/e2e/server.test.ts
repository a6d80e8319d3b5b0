import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ServerProcess } from '../helpers/server-process';
import { built } from '../helpers/built';

const run = promisify(execFile);

/** The real server process (node with tsx's loader, as `npm start` runs the build) on a free port. */
let server: ServerProcess;
let base: string;
let dataDir: string;
// No network here: the ECB's address is a closed local port, so currency starts with nothing loaded.
const env = () => ({ ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info', ECB_BASE_URL: 'http://127.0.0.1:9/ecb' });
const logs = () => server.logs();

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'measurement-e2e-'));
  server = await startServer(env());
  base = server.base;
});
afterAll(async () => {
  await server?.kill();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the server as a newcomer runs it', () => {
  let key = '';

  it('serves the public catalogue', async () => {
    const res = await fetch(`${base}/v1/categories`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: unknown[] }).data).toHaveLength(15);
  });

  it('converts with a key made by the operator CLI while it serves', async () => {
    const { stdout } = await run(process.execPath, [built('admin'), 'key', 'create', '--plan', 'free'], { env: env() });
    key = JSON.parse(stdout).key;
    expect(key).toMatch(/^msr_test_/);
    const res = await fetch(`${base}/v1/convert?value=1&from=mile&to=km`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ data: { result: { value: '1.609344', unit: 'kilometer' } } });
  });

  it('writes one structured log line per request, with a request id and never the key', async () => {
    await fetch(`${base}/v1/convert?value=1&from=mile&to=km`, { headers: { authorization: `Bearer ${key}` } });
    await new Promise((r) => setTimeout(r, 200));
    const lines = logs()
      .split('\n')
      .filter((l) => l.includes('"msg":"request"'));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ method: 'GET', path: '/v1/convert', status: 200 });
    expect(logs()).not.toContain(key);
    expect(logs()).not.toContain(key.slice(9, 40));
  });

  it('keeps no key in plaintext anywhere in its data directory', () => {
    for (const file of readdirSync(dataDir)) {
      const bytes = readFileSync(path.join(dataDir, file)).toString('latin1');
      expect(bytes).not.toContain(key.slice(9, 40));
    }
  });

  it('answers currency with 503 until rates are imported, then serves them without a restart', async () => {
    const convert = () =>
      fetch(`${base}/v1/currency/convert`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ value: '10', from: 'EUR', to: 'USD' }),
      });
    const before = await convert();
    expect(before.status).toBe(503);
    expect(before.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await (await fetch(`${base}/v1/health`)).json()) as any).data.status).toBe('degraded');

    await run(process.execPath, [built('admin'), 'rates', 'import', 'test/fixtures/ecb/hist-wide.csv'], { env: env() });
    const deadline = Date.now() + 60_000;
    let after = await convert();
    while (after.status !== 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      after = await convert();
    }
    expect(after.status).toBe(200);
    expect(((await after.json()) as any).data.rate.source).toBe('ecb');
  });

  it('shuts down cleanly on SIGTERM', async () => {
    const exit = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
    server.child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });
});

describe('configuration', () => {
  it('stops with a one-line message naming a bad variable', async () => {
    const failure = await run(process.execPath, [built('main')], { env: { ...process.env, PORT: 'eighty' } }).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect('code' in failure && failure.code).toBe(1);
    const stderr = (failure as { stderr: string }).stderr.trim();
    expect(stderr.split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/PORT/);
  });
});
