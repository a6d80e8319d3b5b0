import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config';
import { openPostgresCache, openRatesCache, openSqliteCache, RATES_TABLES_SQL, RedisFront, type RatesCache } from '../../../src/data/rates';
import { freshDatabase, postgresTitle, TEST_DATABASE_URL, type FreshDatabase } from '../../helpers/postgres';
import { FIXTURES, tempRates } from './helpers';

const pub = (date: string, rates: Record<string, string>) => ({ date, rates });
const redisUrl = process.env.TEST_REDIS_URL;
const redisTitle = (title: string) => (redisUrl ? title : `${title} (skipped: set TEST_REDIS_URL, e.g. redis://127.0.0.1:6379/13, to run)`);

/** The same contract on every backend: what one cache instance writes, a fresh one reads back. */
function contract(open: () => RatesCache) {
  it('stores publications, the index, the revision, the status and validators, and a new instance reads them', async () => {
    const writer = open();
    const { index, revision } = await writer.writePublications([
      pub('2026-04-13', { USD: '1.2345', JPY: '150.00' }),
      pub('2026-04-10', { USD: '1.2300' }),
    ]);
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
      expect(await reader.readValidators()).toEqual({
        'eurofxref-daily.xml': { etag: '"abc"', lastModified: 'Mon, 13 Apr 2026 14:00:00 GMT' },
      });
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

  it('a corrected publication replaces the stored one for every reader', async () => {
    const a = open();
    const b = open();
    try {
      await a.writePublications([pub('2026-04-08', { USD: '1.1000' })]);
      expect((await b.readPublications(['2026-04-08']))[0]?.rates).toEqual({ USD: '1.1000' });
      await a.writePublications([pub('2026-04-08', { USD: '1.1001' })]);
      expect((await b.readPublications(['2026-04-08']))[0]?.rates).toEqual({ USD: '1.1001' });
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

/** With Redis in front: the publications are copied there, and whatever Redis loses comes back from the database. */
function redisContract(open: () => RatesCache, prefix: string) {
  const redisKey = (date: string) => `${prefix}:pub:${date}`;
  const client = createClient({ url: redisUrl });
  beforeAll(() => client.connect());
  afterAll(async () => {
    for await (const keys of client.scanIterator({ MATCH: `${prefix}:*`, COUNT: 1000 })) if (keys.length) await client.del(keys);
    await client.close();
  });

  it('copies written publications to Redis, after the database', async () => {
    const cache = open();
    try {
      await cache.writePublications([pub('2026-03-02', { USD: '1.0500' })]);
      expect(JSON.parse((await client.get(redisKey('2026-03-02')))!)).toEqual({ USD: '1.0500' });
    } finally {
      await cache.close();
    }
  });

  it('serves what Redis lost (flushed) from the database and puts it back; the index never came from Redis', async () => {
    const cache = open();
    try {
      await cache.writePublications([pub('2026-03-03', { USD: '1.0600' }), pub('2026-03-04', { USD: '1.0700' })]);
      await client.del([redisKey('2026-03-03'), redisKey('2026-03-04')]);
      expect(await cache.readPublications(['2026-03-03', '2026-03-04'])).toEqual([
        pub('2026-03-03', { USD: '1.0600' }),
        pub('2026-03-04', { USD: '1.0700' }),
      ]);
      expect(await client.mGet([redisKey('2026-03-03'), redisKey('2026-03-04')])).toEqual(['{"USD":"1.0600"}', '{"USD":"1.0700"}']);
      expect((await cache.readIndex())?.dates).toEqual(expect.arrayContaining(['2026-03-03', '2026-03-04']));
    } finally {
      await cache.close();
    }
  });

  it('reads Redis first: a publication found there is not read from the database', async () => {
    const cache = open();
    try {
      await cache.writePublications([pub('2026-03-05', { USD: '1.0800' })]);
      // Only Redis holds this value: proof of where the answer came from.
      await client.set(redisKey('2026-03-05'), '{"USD":"9.9999"}');
      expect((await cache.readPublications(['2026-03-05']))[0]?.rates).toEqual({ USD: '9.9999' });
    } finally {
      await cache.close();
    }
  });
}

describe('the rates history on SQLite', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rates-cache-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lives in DATA_DIR/rates.db when DATABASE_URL is not postgres://, with or without REDIS_URL', async () => {
    const cache = openRatesCache(loadConfig({ DATA_DIR: dir }));
    await cache.writeStatus({ fetchedAt: null, lastError: 'x' });
    await cache.close();
    const same = openSqliteCache(path.join(dir, 'rates.db'));
    expect(await same.readStatus()).toEqual({ fetchedAt: null, lastError: 'x' });
    await same.close();
  });

  contract(() => openSqliteCache(path.join(dir, 'cache.db')));

  describe.skipIf(!redisUrl)(redisTitle('with Redis in front (TEST_REDIS_URL)'), () => {
    const prefix = `test-rates-${randomUUID()}`;
    const open = () => openSqliteCache(path.join(dir, 'fronted.db'), 'rates', new RedisFront({ url: redisUrl!, prefix }));
    contract(open);
    redisContract(open, prefix);
  });
});

describe.skipIf(!TEST_DATABASE_URL)(postgresTitle('the rates history on PostgreSQL'), () => {
  let db: FreshDatabase;
  let pool: pg.Pool;
  beforeAll(async () => {
    db = await freshDatabase();
    pool = new pg.Pool({ connectionString: db.url });
    pool.on('error', () => undefined);
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  // A pool of its own per instance, like separate processes.
  contract(() => openPostgresCache(db.url));

  it('lives in the DATABASE_URL database, in the table RATES_TABLES_SQL creates, and leaves a shared pool open', async () => {
    const cache = openRatesCache(loadConfig({ DATA_DIR: os.tmpdir(), DATABASE_URL: db.url }), { pool });
    await cache.writePublications([pub('2026-01-05', { USD: '1.0300' })]);
    await cache.close();
    const { rows } = await pool.query<{ value: string }>("SELECT value FROM rates_keyv WHERE key = 'rates:2026-01-05'");
    expect(JSON.parse(rows[0]!.value).value).toEqual({ USD: '1.0300' });
    // Idempotent: the integrator may run it again from the store's migrations.
    await pool.query(RATES_TABLES_SQL);
  });

  it('creates its table once when several instances start at the same moment', async () => {
    const fresh = await freshDatabase();
    const caches = Array.from({ length: 4 }, () => openPostgresCache(fresh.url));
    try {
      await Promise.all(caches.map((cache, i) => cache.writeStatus({ lastError: `instance ${i}` })));
      expect((await caches[0]!.readStatus()).lastError).toMatch(/^instance \d$/);
    } finally {
      await Promise.all(caches.map((cache) => cache.close()));
      await fresh.drop();
    }
  });

  it('clear() empties only its own prefix', async () => {
    const mine = openPostgresCache(pool, 'clear-mine');
    const other = openPostgresCache(pool, 'clear-other');
    await mine.writePublications([pub('2026-01-06', { USD: '1' })]);
    await other.writePublications([pub('2026-01-06', { USD: '2' })]);
    await mine.clear();
    expect(await mine.readIndex()).toBeUndefined();
    expect((await other.readPublications(['2026-01-06']))[0]?.rates).toEqual({ USD: '2' });
  });

  describe.skipIf(!redisUrl)(redisTitle('with Redis in front (TEST_REDIS_URL)'), () => {
    const prefix = `test-rates-${randomUUID()}`;
    const open = () => openPostgresCache(pool, 'fronted', new RedisFront({ url: redisUrl!, prefix }));
    contract(open);
    redisContract(open, prefix);
  });

  it('a rates service on PostgreSQL serves what another instance imported, after a restart', async () => {
    const t = tempRates({ DATABASE_URL: db.url });
    try {
      await t.service({ cache: openPostgresCache(pool, 'service') }).importFile(path.join(FIXTURES, 'hist-wide.csv'));
      const restarted = t.service({ cache: openPostgresCache(pool, 'service') });
      await restarted.start();
      expect(restarted.latest()?.date).toBe('2026-04-13');
      expect(restarted.resolveDate('2026-04-12')).toBe('2026-04-10');
    } finally {
      await t.cleanup();
    }
  });
});
