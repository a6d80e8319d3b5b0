import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteSourceStore, SourceFileError } from '../../../src/data/sources';
import { ratesCacheFile } from '../../../src/data/rates';
import { tempSources, tiny, type TempSources } from './helpers';

/** Tuesday 2026-04-14, noon in Toronto. */
const clock = () => new Date('2026-04-14T16:00:00Z');

let t: TempSources;
beforeEach(() => {
  t = tempSources();
});
afterEach(() => t.cleanup());

async function storedRevision(): Promise<string | undefined> {
  const store = openSqliteSourceStore(ratesCacheFile(t.config));
  try {
    return (await store.readRevisions(['boc']))[0];
  } finally {
    await store.close();
  }
}

describe('importing a source file', () => {
  it('stores every publication, reports added, replaced, skipped rows and the newest day', async () => {
    const file = t.file('boc.txt', tiny('boc', '2026-04-10 - USD=1.3716 JPY=0.0091', '? row 3 has no value', '2026-04-13 - USD=1.3702'));
    const report = await t.service({ clock }).importFile('boc', file);
    expect(report).toEqual({
      source: 'boc',
      file,
      publications: 2,
      added: 2,
      replaced: 0,
      skipped: [{ line: 3, reason: 'row 3 has no value' }],
      newest: '2026-04-13',
    });
  });

  it('re-importing the same file changes nothing: no day added or replaced, the revision stays', async () => {
    const file = t.file('boc.txt', tiny('boc', '2026-04-10 - USD=1.3716', '2026-04-13 - USD=1.3702'));
    await t.service({ clock }).importFile('boc', file);
    const revision = await storedRevision();
    const again = await t.service({ clock }).importFile('boc', file);
    expect(again).toMatchObject({ publications: 2, added: 0, replaced: 0 });
    expect(await storedRevision()).toBe(revision);
  });

  it('a corrected figure for a stored day replaces it, in the database and in the history', async () => {
    await t.service({ clock }).importFile('boc', t.file('a.txt', tiny('boc', '2026-04-13 - USD=1.3702')));
    const service = t.service({ clock });
    expect(await service.importFile('boc', t.file('b.txt', tiny('boc', '2026-04-13 - USD=1.3705')))).toMatchObject({
      added: 0,
      replaced: 1,
    });
    expect(service.history().figures('boc', 'USD', '2026-04-13')[0]?.figure.value).toBe('1.3705');
    const restarted = t.service({ clock });
    await restarted.start();
    expect(restarted.history().figures('boc', 'USD', '2026-04-13')[0]?.figure.value).toBe('1.3705');
  });

  it('a malformed file is refused with its line and reason, and nothing of it is written', async () => {
    await t.service({ clock }).importFile('boc', t.file('a.txt', tiny('boc', '2026-04-10 - USD=1.3716')));
    const revision = await storedRevision();
    const bad = t.file('bad.txt', tiny('boc', '2026-04-13 - USD=1.3702', '2026-04-14 - USD=one'));
    const error = await t
      .service({ clock })
      .importFile('boc', bad)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SourceFileError);
    expect((error as SourceFileError).message).toBe(`${bad}, line 3: not a figure: USD=one (nothing was imported)`);
    expect(await storedRevision()).toBe(revision);
    const restarted = t.service({ clock });
    await restarted.start();
    expect(restarted.history().latest('boc')).toBe('2026-04-10');
  });

  it('a file that cannot be read is refused naming it', async () => {
    await expect(t.service({ clock }).importFile('nb', `${t.dir}/missing.txt`)).rejects.toThrow(/^cannot read .*missing\.txt: ENOENT/);
  });
});

describe('after a restart', () => {
  it('serves what the database holds without the network, and reports each source', async () => {
    await t.service({ clock }).importFile('nb', t.file('nb.txt', tiny('nb', '2026-04-13 - USD=10.5012/1 JPY=6.9/100')));
    const service = t.service({ clock });
    await service.start();
    expect(service.history().latest('nb')).toBe('2026-04-13');
    expect(service.history().figures('nb', 'JPY')[0]?.figure).toEqual({ value: '6.9', units: '100', direction: 'base-per-units' });
  });
});

describe('another process writing', () => {
  it('is noticed by the revision check: a running service takes what the CLI imported', async () => {
    const server = t.service({ clock });
    await server.start();
    let changes = 0;
    server.onChange(() => changes++);
    const before = server.history();
    await t.service({ clock }).importFile('cnb', t.file('cnb.txt', tiny('cnb', '2026-04-13 - EUR=24.325')));
    await expect.poll(() => server.history().latest('cnb'), { timeout: 5_000 }).toBe('2026-04-13');
    expect(before.latest('cnb')).toBeUndefined();
    expect(changes).toBe(1);
  });
});
