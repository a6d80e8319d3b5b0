import { execFile, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/domain/keys';
import { killAllServers, startServer, type ServerProcess } from '../helpers/server-process';
import { built } from '../helpers/built';

/**
 * What a newcomer meets in the first minutes with the real process (the bundle `npm start` runs):
 * the start line, a busy port, a RATES_FILE that cannot be used, a key of the other environment,
 * rates and errors in the log. Each is one clear line or the contract's body.
 */
const run = promisify(execFile);
let dataDir: string;
let emptyDataDir: string;
const env = (extra: Record<string, string> = {}) => ({
  ...process.env,
  DATA_DIR: dataDir,
  LOG_LEVEL: 'info',
  ECB_BASE_URL: 'http://127.0.0.1:9/ecb',
  ...extra,
});

/** Runs the server expecting it to stop by itself: its exit code and what it wrote. */
async function failedStart(extra: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const failure = await run(process.execPath, [built('main')], { env: env(extra), timeout: 120_000 }).catch(
    (e: { code: number; stdout: string; stderr: string }) => e,
  );
  return failure as { code: number; stdout: string; stderr: string };
}

beforeAll(() => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'measurement-first-'));
  emptyDataDir = mkdtempSync(path.join(os.tmpdir(), 'measurement-first-empty-'));
});
afterAll(async () => {
  await killAllServers();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(emptyDataDir, { recursive: true, force: true });
});

describe('a running server', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServer(env({ RATES_FILE: 'test/fixtures/ecb/hist-wide.csv' }));
  });

  it('prints one start line with the URLs of the API, GraphiQL, the account page and the OpenAPI document', () => {
    const port = new URL(server.base).port;
    const base = `http://127.0.0.1:${port}`;
    const line = server
      .logs()
      .split('\n')
      .find((l) => l.includes('listening on'))!;
    expect(JSON.parse(line).msg).toBe(
      `Measurement API listening on ${base} — GraphiQL ${base}/graphql, account ${base}/account, OpenAPI ${base}/openapi.json`,
    );
  });

  it('logs one info line for the RATES_FILE import, and a failed ECB refresh as one short warning without a stack', async () => {
    const lines = () =>
      server
        .logs()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, any>);
    expect(lines().filter((l) => l.source === 'file')).toEqual([
      expect.objectContaining({
        level: 30,
        newest: '2026-04-13',
        publications: 3,
        currencies: 6,
        msg: expect.stringMatching(/^rates imported from RATES_FILE .*hist-wide\.csv: newest publication 2026-04-13/),
      }),
    ]);
    const deadline = Date.now() + 60_000;
    while (!lines().some((l) => l.level === 40) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    const warning = lines().find((l) => l.level === 40)!;
    expect(warning.msg).toMatch(
      /^ECB rates refresh failed: GET http:\/\/127\.0\.0\.1:9\/ecb\/.* \(serving the rates held, newest 2026-04-13\)$/,
    );
    expect(JSON.stringify(warning)).not.toContain('stack');
  });

  it('tells a key of the other environment which prefix it wants, without echoing the key, and logs the error code', async () => {
    const live = generateApiKey('live');
    const res = await fetch(`${server.base}/v1/convert?value=1&from=mile&to=km`, { headers: { authorization: `Bearer ${live}` } });
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(res.status).toBe(401);
    expect(body.error.message).toBe(
      'The API key is not valid for this environment: this server accepts only msr_test_ keys (API_ENV=development); the key sent is a msr_live_ key.',
    );
    await new Promise((r) => setTimeout(r, 200));
    const logged = server
      .logs()
      .split('\n')
      .find((l) => l.includes(res.headers.get('x-request-id')!) && l.includes('"msg":"request"'))!;
    expect(JSON.parse(logged)).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(server.logs()).not.toContain(live.slice(9));
  });

  afterAll(() => server.kill());
});

describe('a start that cannot work stops with one line and exit 1', () => {
  let blocker: Server;
  let busyPort: number;
  beforeAll(async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    busyPort = (blocker.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => blocker.close(() => resolve())));

  it('a busy port: the fatal line is the last line of the log, after what the start logged', async () => {
    // stdout and stderr into one file, as a terminal or a log collector shows them.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'measurement-fatal-'));
    const file = path.join(dir, 'log');
    const fd = openSync(file, 'w');
    const child = spawn(process.execPath, [built('main')], {
      env: env({ PORT: String(busyPort), DATA_DIR: dir }),
      stdio: ['ignore', fd, fd],
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    closeSync(fd);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    rmSync(dir, { recursive: true, force: true });
    expect(code).toBe(1);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.at(-1)).toBe(`PORT ${busyPort} on HOST 127.0.0.1 is already in use: stop the other server or set PORT to a free port.`);
  });

  it.each([
    [
      'a busy port',
      () => ({ PORT: String(busyPort) }),
      () => `PORT ${busyPort} on HOST 127.0.0.1 is already in use: stop the other server or set PORT to a free port.`,
    ],
    [
      'an address this machine does not have',
      () => ({ PORT: '0', HOST: '192.0.2.1' }),
      () =>
        'HOST 192.0.2.1 is not an address of this machine: set HOST to one of its addresses (127.0.0.1 for this machine only, 0.0.0.0 for every interface).',
    ],
    // An empty data directory: nothing held, so only the order of the lines keeps "no rates held yet" out.
    [
      'a missing RATES_FILE',
      () => ({ PORT: '0', RATES_FILE: '/nope.zip', DATA_DIR: emptyDataDir }),
      () => 'RATES_FILE /nope.zip cannot be used: no such file or directory (ENOENT)',
    ],
    [
      'a RATES_FILE that is not an ECB file',
      () => ({ PORT: '0', RATES_FILE: 'README.md' }),
      () =>
        `RATES_FILE ${path.resolve('README.md')} cannot be used: not an ECB CSV: the header must start with "Date", found "# Measurement API" at line 1`,
    ],
  ])('%s', async (_, extra, line) => {
    const result = await failedStart(extra());
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`${line()}\n`);
    expect(result.stdout).not.toContain('listening');
    // A RATES_FILE that cannot be used is the start's only message, not preceded by "no rates held yet".
    if ('RATES_FILE' in extra()) expect(result.stdout).not.toContain('no rates held');
  });
});
