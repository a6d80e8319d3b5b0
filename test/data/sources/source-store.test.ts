import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config';
import { createSourceRatesService, openPostgresSourceStore, openSqliteSourceStore, type SourceStore } from '../../../src/data/sources';
import type { SourcePublication } from '../../../src/domain/sources/types';
import { freshDatabase, postgresTitle, TEST_DATABASE_URL, type FreshDatabase } from '../../helpers/postgres';
import { FAST, offline, silentLogger, tiny, tinyParse } from './helpers';

const pub = (date: string, value: string, table = ''): SourcePublication => ({
  source: 'nbp',
  table,
  date,
  base: 'PLN',
  figures: { USD: { value, units: '1', direction: 'base-per-units' } },
});

/** The same contract on every backend: what one store writes, a fresh one reads back. */
function contract(open: () => SourceStore) {
  it('stores publications per source and table with a revision, and a new instance reads them', async () => {
    const writer = open();
    const revision = await writer.write('nbp', [pub('2026-04-13', '3.7012', 'A'), pub('2026-04-08', '3.71', 'B')]);
    await writer.writeStatus('nbp', { fetchedAt: '2026-04-13T10:30:00.000Z', lastError: null });
    await writer.writeStatus('boc', { lastError: { message: 'GET …: HTTP 503', unparsable: false } });
    await writer.close();
    const reader = open();
    try {
      expect(await reader.readRevisions(['nbp', 'boc'])).toEqual([revision, undefined]);
      expect((await reader.readPublications('nbp')).sort((a, b) => a.table.localeCompare(b.table))).toEqual([
        pub('2026-04-13', '3.7012', 'A'),
        pub('2026-04-08', '3.71', 'B'),
      ]);
      expect(await reader.readPublications('boc')).toEqual([]);
      expect(await reader.readStatuses(['nbp', 'boc'])).toEqual([
        { fetchedAt: '2026-04-13T10:30:00.000Z', lastError: null },
        { fetchedAt: null, lastError: { message: 'GET …: HTTP 503', unparsable: false } },
      ]);
    } finally {
      await reader.close();
    }
  });

  it('a later write keeps the days another writer stored, and replaces a day it writes again', async () => {
    const [a, b] = [open(), open()];
    try {
      await a.write('cbr', [{ ...pub('2026-04-01', '80.1'), source: 'cbr', base: 'RUB' }]);
      await b.write('cbr', [{ ...pub('2026-04-02', '80.2'), source: 'cbr', base: 'RUB' }]);
      await a.write('cbr', [{ ...pub('2026-04-01', '80.15'), source: 'cbr', base: 'RUB' }]);
      const held = (await b.readPublications('cbr')).map((p) => [p.date, p.figures.USD?.value]).sort();
      expect(held).toEqual([
        ['2026-04-01', '80.15'],
        ['2026-04-02', '80.2'],
      ]);
    } finally {
      await a.close();
      await b.close();
    }
  });
}

describe('the sources store on SQLite', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'source-store-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  contract(() => openSqliteSourceStore(path.join(dir, 'rates.db')));
});

describe.skipIf(!TEST_DATABASE_URL)(postgresTitle('the sources store on PostgreSQL'), () => {
  let db: FreshDatabase;
  const namespace = `test-sources-${randomUUID()}`;
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });
  contract(() => openPostgresSourceStore(db.url, namespace));

  it('a server notices what the CLI imported on the same database, a malformed file writes nothing, a restart serves it', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'source-pg-'));
    const config = loadConfig({ DATA_DIR: dir, DATABASE_URL: db.url, RATE_SOURCES: 'boc,nbu' });
    const make = () => createSourceRatesService({ config, logger: silentLogger, fetch: offline, parse: tinyParse, tuning: FAST });
    const server = make();
    try {
      await server.start();
      const file = path.join(dir, 'nbu.txt');
      writeFileSync(file, tiny('nbu', '2026-04-13 - USD=41.2', '2026-04-14 - USD=41.3'));
      const cli = make();
      expect(await cli.importFile('nbu', file)).toMatchObject({ added: 2, replaced: 0, newest: '2026-04-14' });
      expect(await cli.importFile('nbu', file)).toMatchObject({ added: 0, replaced: 0 });
      writeFileSync(file, tiny('nbu', '2026-04-15 - USD=41.4', '2026-04-16 USD'));
      await expect(cli.importFile('nbu', file)).rejects.toThrow(/line 3: not a row \(nothing was imported\)$/);
      await cli.stop();
      await expect.poll(() => server.history().latest('nbu'), { timeout: 5_000 }).toBe('2026-04-14');
      const restarted = make();
      await restarted.start();
      expect(restarted.history().figures('nbu', 'USD', '2026-04-15')[0]?.date).toBe('2026-04-14');
      await restarted.stop();
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
