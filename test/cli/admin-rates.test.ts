import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin';
import { loadConfig, type Config } from '../../src/config';
import { openStore } from '../../src/data/open-store';
import { createRatesService } from '../../src/data/rates';
import type { AccountStore } from '../../src/services/account-store';
import { historyZip, serve, startFakeEcb, status, type FakeEcb } from '../data/rates/helpers';
import { built } from '../helpers/built';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/ecb');
const clock = () => new Date('2026-04-14T10:00:00Z');

let dir: string;
let store: AccountStore;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'admin-rates-'));
  store = openStore(loadConfig({ DATA_DIR: dir }));
});
afterEach(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs the CLI in-process with a rates service on the temp dir, progress on; the stderr line that is JSON is the error, if any. */
async function admin(argv: string[], env: Record<string, string> = {}) {
  const config: Config = loadConfig({ DATA_DIR: dir, ...env });
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(argv, {
    config,
    store,
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    rates: () => createRatesService({ config, logger: pino({ level: 'silent' }), clock, tuning: { tries: 1, connectTimeoutMs: 10_000 } }),
    progress: true,
  });
  const line = stderr.split('\n').find((l) => l.startsWith('{'));
  return { code, stdout, stderr, json: stdout ? JSON.parse(stdout) : undefined, error: line ? JSON.parse(line).error : undefined };
}

describe('rates import', () => {
  it('imports a file and prints {file, publications, added, replaced, newest}; progress goes to stderr', async () => {
    const file = path.join(FIXTURES, 'hist-wide.csv');
    const r = await admin(['rates', 'import', file]);
    expect(r).toMatchObject({ code: 0, json: { file, publications: 3, added: 3, replaced: 0, newest: '2026-04-13' } });
    expect(Object.keys(r.json)).toEqual(['file', 'publications', 'added', 'replaced', 'newest']);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^rates: reading .*hist-wide\.csv$/m);

    const again = await admin(['rates', 'import', path.join(FIXTURES, 'daily-next.xml')]);
    expect(again.json).toMatchObject({ publications: 1, added: 1, newest: '2026-04-14' });
  });

  it('a broken file exits 1 with a JSON error naming the problem, and nothing is imported', async () => {
    const r = await admin(['rates', 'import', path.join(FIXTURES, 'truncated.xml')]);
    expect(r).toMatchObject({
      code: 1,
      stdout: '',
      error: { code: 'INVALID_REQUEST', message: expect.stringMatching(/truncated\.xml: truncated XML/) },
    });
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const missing = await admin(['rates', 'import', path.join(dir, 'nope.zip')]);
    expect(missing).toMatchObject({
      code: 1,
      error: { code: 'INVALID_REQUEST', message: expect.stringContaining('cannot read the rates file') },
    });
  });

  it('needs exactly one file: a usage error otherwise', async () => {
    expect(await admin(['rates', 'import'])).toMatchObject({
      code: 2,
      error: { code: 'INVALID_REQUEST', message: expect.stringContaining('<file>') },
    });
  });
});

describe('rates refresh', () => {
  let ecb: FakeEcb;
  beforeEach(async () => {
    ecb = await startFakeEcb();
  });
  afterEach(() => ecb.close());

  it('fetches from ECB_BASE_URL and prints {source, publications, added, replaced, newest}', async () => {
    ecb.route('eurofxref-hist.zip', serve(historyZip(), { type: 'application/zip' }));
    const r = await admin(['rates', 'refresh'], { ECB_BASE_URL: ecb.url });
    expect(r).toMatchObject({
      code: 0,
      json: { source: `${ecb.url}/eurofxref-hist.zip`, publications: 3, added: 3, replaced: 0, newest: '2026-04-13' },
    });
    expect(r.stderr).toContain(`rates: fetching ${ecb.url}/eurofxref-hist.zip`);
  });

  it('an unreachable or failing ECB exits 1 with SERVICE_UNAVAILABLE', async () => {
    ecb.route('eurofxref-hist.zip', status(500));
    const r = await admin(['rates', 'refresh'], { ECB_BASE_URL: ecb.url });
    expect(r).toMatchObject({ code: 1, stdout: '', error: { code: 'SERVICE_UNAVAILABLE', message: expect.stringContaining('HTTP 500') } });
  });
});

describe('scripts/admin.ts rates import', () => {
  it('runs against DATA_DIR as a separate process: JSON on stdout, exit 0; a broken file exits 1', () => {
    const run = (file: string) =>
      spawnSync(process.execPath, [built('admin'), 'rates', 'import', file], {
        env: { PATH: process.env.PATH, DATA_DIR: dir },
        encoding: 'utf8',
      });
    const ok = run(path.join(FIXTURES, 'hist-90d-one-line.xml'));
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ publications: 3, added: 3, newest: '2026-04-13' });
    const bad = run(path.join(FIXTURES, 'error-page.html'));
    expect(bad.status).toBe(1);
    expect(JSON.parse(bad.stderr.trimEnd().split('\n').at(-1)!).error).toMatchObject({ code: 'INVALID_REQUEST' });
  });
});
