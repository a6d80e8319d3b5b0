import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config';
import { openRatesCache, openSqliteCache, type RatesCache } from '../../../src/data/rates';
import { FIXTURES, tempRates } from './helpers';

const pub = (date: string, rates: Record<string, string>) => ({ date, rates });

/** The same round trip on every backend: what one cache instance writes, a fresh one reads back. */
function roundTrip(open: () => RatesCache) {
  it('stores publications, the index, the revision, the status and validators, and a new instance reads them', async () => {
    const writer = open();
    const { index, revision } = await writer.writePublications([pub('2026-04-13', { USD: '1.2345', JPY: '150.00' }), pub('2026-04-10', { USD: '1.2300' })]);
    expect(index).toEqual({ dates: ['2026-04-10', '2026-04-13'], currencies: ['JPY', 'USD'] });
    await writer.writeStatus({ fetchedAt: '2026-04-13T14:05:00.000Z', lastError: null });
    await writer.writeValidator('eurofxref-daily.xml', { etag: '"abc"', lastModified: 'Mon, 13 Apr 2026 14:00:00 GMT' });
    await writer.close();

    const reader = open();
    try {
      expect(await reader.readRevision()).toBe(revision);
      expect(await reader.readIndex()).toEqual(index);
      expect(await reader.readPublications(['2026-04-13', '2026-04-11', '2026-04-10'])).toEqual([
        pub('2026-04-13', { USD: '1.2345', JPY: '150.00' }),
        undefined,
        pub('2026-04-10', { USD: '1.2300' }),
      ]);
      expect(await reader.readStatus()).toEqual({ fetchedAt: '2026-04-13T14:05:00.000Z', lastError: null });
      expect(await reader.readValidators()).toEqual({ 'eurofxref-daily.xml': { etag: '"abc"', lastModified: 'Mon, 13 Apr 2026 14:00:00 GMT' } });
    } finally {
      await reader.close();
    }
  });

  it('a later write keeps the dates another writer added and changes the revision', async () => {
    const a = open();
    const b = open();
    try {
      const first = await a.writePublications([pub('2026-04-09', { USD: '1.2250' })]);
      const second = await b.writePublications([pub('2026-04-14', { USD: '1.2401' })]);
      expect(second.revision).not.toBe(first.revision);
      expect((await a.readIndex())?.dates).toEqual(expect.arrayContaining(['2026-04-09', '2026-04-14']));
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('stores every publication of a write larger than one slice (the whole history is written in slices)', async () => {
    const day = (i: number) => new Date(Date.UTC(2000, 0, 1 + i)).toISOString().slice(0, 10);
    const many = Array.from({ length: 700 }, (_, i) => pub(day(i), { USD: `1.${String(i).padStart(4, '0')}` }));
    const writer = open();
    try {
      const { index } = await writer.writePublications(many);
      expect(index.dates).toEqual(expect.arrayContaining(many.map((p) => p.date)));
      expect(await writer.readPublications(many.map((p) => p.date))).toEqual(many);
    } finally {
      await writer.close();
    }
  });
}

describe('the rates cache on SQLite', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rates-cache-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lives in DATA_DIR/rates.db when REDIS_URL is unset', async () => {
    const cache = openRatesCache(loadConfig({ DATA_DIR: dir }));
    await cache.writeStatus({ fetchedAt: null, lastError: 'x' });
    await cache.close();
    const same = openSqliteCache(path.join(dir, 'rates.db'));
    expect(await same.readStatus()).toEqual({ fetchedAt: null, lastError: 'x' });
    await same.close();
  });

  roundTrip(() => openSqliteCache(path.join(dir, 'cache.db')));
});

const redisUrl = process.env.TEST_REDIS_URL;
if (!redisUrl) console.warn('Redis rates cache tests skipped: TEST_REDIS_URL is unset (e.g. TEST_REDIS_URL=redis://127.0.0.1:6379)');

describe.skipIf(!redisUrl)('the rates cache on Redis (TEST_REDIS_URL)', () => {
  // A unique prefix per run, cleared afterwards, so runs never see each other's keys.
  const prefix = `test-rates-${randomUUID()}`;
  const open = (suffix = '') => openRatesCache(loadConfig({ DATA_DIR: os.tmpdir(), REDIS_URL: redisUrl! }), { prefix: prefix + suffix });
  afterAll(async () => {
    for (const suffix of ['', '-service']) {
      const cache = open(suffix);
      await cache.clear();
      expect(await cache.readIndex()).toBeUndefined();
      await cache.close();
    }
  });
  roundTrip(() => open());

  it('a rates service on Redis serves what another instance imported, after a restart', async () => {
    const t = tempRates({ REDIS_URL: redisUrl! });
    try {
      await t.service({ cache: open('-service') }).importFile(path.join(FIXTURES, 'hist-wide.csv'));
      const restarted = t.service({ cache: open('-service') });
      await restarted.start();
      expect(restarted.latest()?.date).toBe('2026-04-13');
      expect(restarted.resolveDate('2026-04-12')).toBe('2026-04-10');
    } finally {
      await t.cleanup();
    }
  });
});
