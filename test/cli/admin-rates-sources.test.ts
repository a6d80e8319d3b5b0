import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin';
import { loadConfig, type Config } from '../../src/config';
import { openStore } from '../../src/data/open-store';
import { createRatesService } from '../../src/data/rates';
import { createSourceRatesService } from '../../src/data/sources';
import type { AccountStore } from '../../src/services/account-store';
import { offline, tiny, tinyParse } from '../data/sources/helpers';

const clock = () => new Date('2026-04-14T10:00:00Z');

let dir: string;
let store: AccountStore;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'admin-sources-'));
  store = openStore(loadConfig({ DATA_DIR: dir }));
});
afterEach(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs the CLI in-process on the temp dir with the tests' made-up feed format, progress on. */
async function admin(argv: string[]) {
  const config: Config = loadConfig({ DATA_DIR: dir });
  const logger = pino({ level: 'silent' });
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(argv, {
    config,
    store,
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    rates: () => createRatesService({ config, logger, clock, fetch: offline }),
    sources: () => createSourceRatesService({ config, logger, clock, fetch: offline, parse: tinyParse }),
    progress: true,
  });
  const line = stderr.split('\n').find((l) => l.startsWith('{'));
  return { code, stdout, stderr, json: stdout ? JSON.parse(stdout) : undefined, error: line ? JSON.parse(line).error : undefined };
}

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

describe('rates import --source', () => {
  it("imports a publisher's file and prints what it added, replaced and skipped, each skipped row with its line and reason", async () => {
    const file = write('nbp.txt', tiny('nbp', '2026-04-13 A USD=3.7012', '? no mid for XAU', '2026-04-08 B AFN=0.0571'));
    const r = await admin(['rates', 'import', '--source', 'nbp', file]);
    expect(r.code).toBe(0);
    expect(r.json).toEqual({
      source: 'nbp',
      file,
      publications: 2,
      added: 2,
      replaced: 0,
      skipped: [{ line: 3, reason: 'no mid for XAU' }],
      newest: '2026-04-13',
    });
    expect(r.stderr).toMatch(/^rates: skipped line 3: no mid for XAU$/m);
    const again = await admin(['rates', 'import', '--source', 'nbp', file]);
    expect(again.json).toMatchObject({ added: 0, replaced: 0 });
  });

  it('a malformed file exits 1 naming the line and the reason, and nothing is written', async () => {
    const bad = write('bad.txt', tiny('boc', '2026-04-13 - USD=1.37', 'garbage'));
    const r = await admin(['rates', 'import', '--source', 'boc', bad]);
    expect(r.code).toBe(1);
    expect(r.error).toEqual({ code: 'INVALID_REQUEST', message: `${bad}, line 3: not a row (nothing was imported)` });
    const good = write('good.txt', tiny('boc', '2026-04-10 - USD=1.36'));
    expect((await admin(['rates', 'import', '--source', 'boc', good])).json).toMatchObject({ added: 1, newest: '2026-04-10' });
  });

  it('an unknown source id exits 2 with the list of the ids', async () => {
    const r = await admin(['rates', 'import', '--source', 'fed', write('x.txt', 'x')]);
    expect(r.code).toBe(2);
    expect(r.error).toEqual({
      code: 'INVALID_REQUEST',
      message: "Unknown source 'fed': --source takes one of ecb, boc, nb, cnb, nbp, cbr, boi, imf, nbu.",
    });
  });

  it('without --source (or with --source ecb) it is the ECB import as before', async () => {
    const file = path.resolve(import.meta.dirname, '../fixtures/ecb/hist-wide.csv');
    const plain = await admin(['rates', 'import', file]);
    expect(plain.json).toEqual({ file, publications: 3, added: 3, replaced: 0, newest: '2026-04-13' });
    const named = await admin(['rates', 'import', '--source', 'ecb', file]);
    expect(named.json).toEqual({ file, publications: 3, added: 0, replaced: 0, newest: '2026-04-13' });
  });
});
