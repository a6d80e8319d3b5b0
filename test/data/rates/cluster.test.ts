import path from 'node:path';
import { Pool } from 'pg';
import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RatesService } from '../../../src/services/currency/rates';
import { tcpProxy } from '../../helpers/tcp-proxy';
import { freshDatabase, postgresTitle, TEST_DATABASE_URL, type FreshDatabase } from '../../helpers/postgres';
import { FIXTURES, historyZip, serve, startFakeEcb, tempRates, type FakeEcb, type TempRates } from './helpers';

/** How long to wait for something that happens in the background: a bound for a hung test, not a time budget. */
const WAIT = { timeout: 60_000, interval: 50 };

/**
 * Several rates services on one PostgreSQL database, as several server instances would run: each
 * opens the history from DATABASE_URL with a pool of its own, and checks the revision every 5 s
 * (the production period).
 */
describe.skipIf(!TEST_DATABASE_URL)(postgresTitle('rates for a cluster on one PostgreSQL database'), () => {
  let db: FreshDatabase;
  let ecb: FakeEcb;
  let t: TempRates;
  /** On the server's default database, to look at pg_stat_activity. */
  const pg = new Pool({ connectionString: TEST_DATABASE_URL, max: 1 });
  afterAll(() => pg.end());
  beforeEach(async () => {
    ecb = await startFakeEcb();
    db = await freshDatabase();
    t = tempRates({ DATABASE_URL: db.url, ECB_BASE_URL: ecb.url });
  });
  afterEach(async () => {
    await t?.cleanup();
    await ecb?.close();
    await db?.drop();
  });

  /** `count` services; started ones check the revision every 5 s and refresh once in the background (the fake ECB answers 404 to what is not routed). */
  const instances = async (count: number, start = true): Promise<RatesService[]> => {
    const made = Array.from({ length: count }, () => t.service({ fetch: globalThis.fetch, tuning: { syncIntervalMs: 5_000, tries: 1 } }));
    if (start) await Promise.all(made.map((service) => service.start()));
    return made;
  };

  it('an import by one instance is served by every instance, without a restart', async () => {
    const [a, b, c] = await instances(3);
    expect(b!.latest()).toBeUndefined();
    await a!.importFile(path.join(FIXTURES, 'hist-wide.csv'));
    await vi.waitFor(() => {
      for (const service of [b!, c!]) expect(service.status()).toMatchObject({ date: '2026-04-13', fetchedAt: expect.any(String) });
    }, WAIT);
    expect(c!.latest()?.date).toBe('2026-04-13');
    expect(c!.resolveDate('2026-04-12')).toBe('2026-04-10');
    expect((await c!.loadPublications(['2026-04-09']))[0]?.rates.USD).toBe('1.225');
  });

  it('LISTEN/NOTIFY delivers a new publication without waiting for the periodic check (here an hour apart)', async () => {
    const [a, b] = [t.service({ tuning: { syncIntervalMs: 3_600_000 } }), t.service({ tuning: { syncIntervalMs: 3_600_000 } })];
    await Promise.all([a.start(), b.start()]);
    // The listener's first LISTEN is in the background: an import before it would only be seen in an hour.
    await vi.waitFor(async () => {
      const { rows } = await pg.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND query = $2', [
        new URL(db.url).pathname.slice(1),
        'LISTEN rates_revision',
      ]);
      expect(rows[0]!.n).toBe(2);
    }, WAIT);
    await a.importFile(path.join(FIXTURES, 'hist-wide.csv'));
    await vi.waitFor(() => expect(b.latest()?.date).toBe('2026-04-13'), WAIT);
  });

  it('two refreshes at once fetch from the ECB once: the other instance skips and picks the result up by its revision check', async () => {
    // The history answer is held back until the test has seen the other instance skip.
    const held: (() => void)[] = [];
    ecb.route('eurofxref-hist.zip', (req, res: ServerResponse) => {
      held.push(() => serve(historyZip(), { type: 'application/zip' })(req, res));
    });
    const [a, b] = await instances(2); // both start a refresh at once, on an empty history
    await vi.waitFor(() => expect(ecb.count('eurofxref-hist.zip')).toBe(1), WAIT);
    // The holder's refresh() is the one in flight (held); the other's is refused the lock and returns.
    const skipped = await Promise.race([a!.refresh(), b!.refresh()]);
    expect(skipped).toMatchObject({ publications: 0, added: 0, newest: null });
    for (const answer of held) answer();
    await vi.waitFor(() => {
      for (const service of [a!, b!]) expect(service.latest()?.date).toBe('2026-04-13');
    }, WAIT);
    expect(ecb.count('eurofxref-hist.zip')).toBe(1);
  });

  it('the fetch lock is free again once the holder is done: the next refresh, on another instance, fetches', async () => {
    ecb.route('eurofxref-hist.zip', serve(historyZip(), { type: 'application/zip' }));
    const [a, b] = await instances(2, false);
    await a!.refresh();
    expect(ecb.count('eurofxref-daily.xml')).toBe(0);
    // b sees a's history inside the lock, so it asks for the daily file (not routed: 404).
    await expect(b!.refresh()).rejects.toThrow(/404/);
    expect(ecb.count('eurofxref-daily.xml')).toBe(1);
    expect(ecb.count('eurofxref-hist.zip')).toBe(1);
  });

  it('a database that cannot be read answers 503 SERVICE_UNAVAILABLE with Retry-After (never a 500), and recovers by itself', async () => {
    const proxy = await tcpProxy(db.url);
    const through = tempRates({ DATABASE_URL: proxy.url, ECB_BASE_URL: ecb.url });
    try {
      const rates = through.service();
      await rates.importFile(path.join(FIXTURES, 'hist-wide.csv'));
      await proxy.stop();
      await expect(rates.loadPublications(['2026-04-10'])).rejects.toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        status: 503,
        details: { retryAfterSeconds: 5 },
      });
      expect(rates.latest()?.date).toBe('2026-04-13'); // what memory holds is still served
      await proxy.start();
      await vi.waitFor(async () => expect((await rates.loadPublications(['2026-04-10']))[0]?.rates.USD).toBe('1.23'), WAIT);
    } finally {
      await through.cleanup();
      await proxy.close();
    }
  });
});
