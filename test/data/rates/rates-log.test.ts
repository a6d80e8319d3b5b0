import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RatesFileError } from '../../../src/data/rates';
import { FIXTURES, historyZip, serve, startFakeEcb, status, tempRates, type FakeEcb, type TempRates } from './helpers';

/** A logger at debug whose lines are kept, parsed. */
function capturingLogger() {
  const lines: Record<string, any>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, sink), lines, at: (level: number) => lines.filter((l) => l.level === level) };
}
const INFO = 30;
const WARN = 40;
const DEBUG = 20;
const WAIT = { timeout: 60_000 };

let t: TempRates | undefined;
let ecb: FakeEcb | undefined;
afterEach(async () => {
  await t?.cleanup();
  await ecb?.close();
  t = undefined;
  ecb = undefined;
});

describe('RATES_FILE at start', () => {
  it.each([
    ['a missing file', () => '/nope.zip', /^RATES_FILE \/nope\.zip cannot be used: no such file or directory \(ENOENT\)$/],
    ['a directory', () => FIXTURES, /^RATES_FILE .*ecb cannot be used: illegal operation on a directory \(EISDIR\)$/],
    [
      'a file that is not an ECB file',
      (dir: string) => writeTo(path.join(dir, 'notes.csv'), 'hello\n'),
      /^RATES_FILE .*notes\.csv cannot be used: not an ECB CSV: the header must start with "Date"/,
    ],
    [
      'a file the update checks refuse',
      (dir: string) => writeTo(path.join(dir, 'future.csv'), 'Date,USD,\n2099-01-05,1.1,\n'),
      /^RATES_FILE .*future\.csv cannot be used: refused: publications dated after today/,
    ],
  ])('stops the start with one line naming RATES_FILE and the cause: %s', async (_, file, message) => {
    const scratch = tempRates();
    const target = file(scratch.dir);
    t = tempRates({ RATES_FILE: target });
    const error = await t
      .service()
      .start()
      .catch((e: unknown) => e);
    await scratch.cleanup();
    expect(error).toBeInstanceOf(RatesFileError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message.split('\n')).toHaveLength(1);
    // The path once, not again in the cause's words.
    expect((error as Error).message.split(target).length - 1).toBe(1);
  });

  it('logs one info line for the import: source, newest publication, publications and currencies held', async () => {
    const { logger, at } = capturingLogger();
    t = tempRates({ RATES_FILE: path.join(FIXTURES, 'hist-wide.csv') });
    await t.service({ logger }).start();
    const loads = at(INFO).filter((l) => /^rates /.test(l.msg));
    expect(loads).toHaveLength(1);
    expect(loads[0]).toMatchObject({ source: 'file', newest: '2026-04-13', publications: 3, currencies: 6, added: 3, replaced: 0 });
    expect(loads[0]!.msg).toBe(
      `rates imported from RATES_FILE ${path.join(FIXTURES, 'hist-wide.csv')}: newest publication 2026-04-13, 3 publications, 6 currencies (3 added, 0 replaced)`,
    );
  });
});

describe('loads and refreshes in the log', () => {
  it('a start on a filled database says what it loaded, and an empty one says nothing is held', async () => {
    t = tempRates();
    const empty = capturingLogger();
    await t.service({ logger: empty.logger }).start();
    expect(empty.at(INFO).map((l) => l.msg)).toContain(
      'no rates held yet: the currency routes answer 503 until RATES_FILE or the ECB provides them',
    );

    await t.service().importFile(path.join(FIXTURES, 'hist-wide.csv'));
    const filled = capturingLogger();
    await t.service({ logger: filled.logger }).start();
    expect(filled.at(INFO).find((l) => l.source === 'database')).toMatchObject({
      msg: 'rates loaded from the database: newest publication 2026-04-13, 3 publications, 6 currencies',
      newest: '2026-04-13',
      publications: 3,
    });
  });

  it('a successful refresh logs one info line with source ecb', async () => {
    ecb = await startFakeEcb();
    ecb.route('eurofxref-hist.zip', serve(historyZip(), { type: 'application/zip' }));
    t = tempRates({ ECB_BASE_URL: ecb.url });
    const { logger, at } = capturingLogger();
    await t.service({ logger, fetch: globalThis.fetch }).refresh();
    const loads = at(INFO).filter((l) => l.source === 'ecb');
    expect(loads).toHaveLength(1);
    expect(loads[0]).toMatchObject({ newest: '2026-04-13', publications: 3, currencies: 6, added: 3, replaced: 0 });
    expect(loads[0]!.msg).toMatch(
      /^rates refreshed from the ECB: newest publication 2026-04-13, 3 publications, 6 currencies \(3 added, 0 replaced\)$/,
    );
  });

  it('a failed refresh is one short warning without a stack; the stack is at debug', async () => {
    ecb = await startFakeEcb();
    ecb.route('eurofxref-hist.zip', status(500));
    t = tempRates({ ECB_BASE_URL: ecb.url });
    const { logger, at } = capturingLogger();
    const rates = t.service({ logger, fetch: globalThis.fetch });
    await rates.start();
    await vi.waitFor(() => expect(at(WARN).length).toBeGreaterThan(0), WAIT);
    const [warning] = at(WARN);
    expect(warning!.msg).toMatch(/^ECB rates refresh failed: GET .*eurofxref-hist\.zip.*500.* \(serving no rates yet\)$/);
    expect(JSON.stringify(warning)).not.toMatch(/stack|\n\s+at /);
    expect(JSON.stringify(warning).length).toBeLessThan(600);
    expect(at(DEBUG).find((l) => l.msg === 'ECB rates refresh failed')?.err?.stack).toMatch(/\n\s+at /);
  });
});

function writeTo(file: string, text: string): string {
  writeFileSync(file, text);
  return file;
}
