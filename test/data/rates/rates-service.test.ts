import { writeFileSync } from 'node:fs';
import path from 'node:path';
import DataLoader from 'dataloader';
import { Keyv } from 'keyv';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RatesCache, RatesSourceError } from '../../../src/data/rates';
import { openKeyvDatabase, SqliteKeyvStore } from '../../../src/data/rates/sqlite-keyv-store';
import type { Publication } from '../../../src/domain/ecb';
import { renderCsv } from '../../domain/ecb/helpers';
import { FIXTURES, offline, tempRates, TUESDAY_EVENING, type TempRates } from './helpers';

/** vi.waitFor's 1 s default is tight on a loaded 2-core CI machine. */
/** How long to wait for something that happens in the background: a bound for a hung test, not a time budget. */
const WAIT = { timeout: 60_000 };

let t: TempRates;
beforeEach(() => {
  t = tempRates();
});
afterEach(() => t.cleanup());

const fixture = (name: string) => path.join(FIXTURES, name);

/** `count` made-up business-day-ish publications ending 2026-04-13, one date per day. */
function madeUpDays(count: number): Publication[] {
  return Array.from({ length: count }, (_, i) => {
    const date = new Date(Date.UTC(2026, 3, 13) - (count - 1 - i) * 86_400_000).toISOString().slice(0, 10);
    return { date, rates: { USD: `1.${1000 + i}`, JPY: `${150 + i}.5` } };
  });
}

/** A cache whose publication store counts its reads (Keyv calls get per key or getMany per batch). */
function countingCache(file: string) {
  const db = openKeyvDatabase(file);
  const store = new SqliteKeyvStore(db);
  const reads = { get: 0, getMany: 0 };
  const { get, getMany } = { get: store.get.bind(store), getMany: store.getMany.bind(store) };
  store.get = async (key) => (reads.get++, get(key));
  store.getMany = async (keys) => (reads.getMany++, getMany(keys));
  const keyv = (namespace: string, s: SqliteKeyvStore) => new Keyv({ store: s, namespace, throwOnErrors: true });
  const cache = new RatesCache(keyv('rates', store), keyv('rates-meta', new SqliteKeyvStore(db)), async () => {
    db.close();
  });
  return { cache, reads };
}

describe('importFile', () => {
  it('imports the history CSV: index, latest, known currencies (every code ever quoted, plus EUR)', async () => {
    const rates = t.service();
    const report = await rates.importFile(fixture('hist-wide.csv'));
    expect(report).toEqual({ file: fixture('hist-wide.csv'), publications: 3, added: 3, replaced: 0, newest: '2026-04-13' });
    expect(rates.latest()).toEqual({ date: '2026-04-13', rates: { USD: '1.2345', JPY: '150', GBP: '0.8642', HUF: '390.1', ISK: '140.2' } });
    expect([...rates.knownCurrencies()].sort()).toEqual(['EUR', 'GBP', 'HUF', 'ISK', 'JPY', 'USD']);
    expect(rates.resolveDate('2026-04-12')).toBe('2026-04-10');
    expect(rates.resolveDate('2026-04-08')).toBeUndefined();
    expect(rates.status()).toMatchObject({
      date: '2026-04-13',
      fetchedAt: TUESDAY_EVENING.toISOString(),
      stale: true,
      missingPublications: 1,
      lastError: null,
    });
  });

  it('lists the publication dates, as a new list whenever the rates change (what keys the currencies registry)', async () => {
    const rates = t.service();
    const before = rates.publicationDates?.();
    await rates.importFile(fixture('hist-wide.csv'));
    const after = rates.publicationDates?.();
    expect(after).not.toBe(before);
    expect([...(after ?? [])]).toEqual(['2026-04-09', '2026-04-10', '2026-04-13']);
    expect(rates.publicationDates?.()).toBe(after);
  });

  it('tells revision listeners of each change it serves, not of an import that changes nothing', async () => {
    const rates = t.service();
    const seen: (string | undefined)[] = [];
    const unsubscribe = rates.onRevision?.(() => seen.push(rates.latest()?.date));
    await rates.importFile(fixture('hist-wide.csv'));
    expect(seen).toEqual(['2026-04-13']);
    await rates.importFile(fixture('hist-wide.csv'));
    expect(seen).toEqual(['2026-04-13']);
    unsubscribe?.();
    await rates.importFile(fixture('daily-next.xml'));
    expect(seen).toEqual(['2026-04-13']);
  });

  it('a day equal as decimals keeps the stored strings; a different one replaces it (RateTable.merge rule)', async () => {
    const rates = t.service();
    await rates.importFile(fixture('hist-wide.csv'));
    const same = await rates.importFile(fixture('daily-single-quotes.xml')); // "150.00" where the CSV has "150"
    expect(same).toMatchObject({ publications: 1, added: 0, replaced: 0 });
    expect(rates.latest()?.rates.JPY).toBe('150');

    const corrected = path.join(t.dir, 'corrected.csv');
    writeFileSync(corrected, 'Date,USD,JPY,GBP,HUF,ISK,\n2026-04-13,1.2399,150,0.8642,390.1,140.2,\n');
    expect(await rates.importFile(corrected)).toMatchObject({ added: 0, replaced: 1, newest: '2026-04-13' });
    expect(rates.latest()?.rates.USD).toBe('1.2399');
    expect((await rates.loadPublications(['2026-04-13']))[0]?.rates.USD).toBe('1.2399');
  });

  it.each([
    ['truncated.xml', /truncated XML/],
    ['error-page.html', /not an ECB XML document/],
    ['empty.xml', /empty/],
    ['duplicate-date.xml', /duplicate date 2026-04-13/],
    ['bad-rate-negative.xml', /invalid rate "-1"/],
    ['no-such-file.xml', /cannot read the rates file/],
  ])('a bad file (%s) is refused with a clear error and nothing changes', async (name, message) => {
    const rates = t.service();
    await rates.importFile(fixture('hist-wide.csv'));
    const before = { latest: rates.latest(), status: rates.status() };
    const error = await rates.importFile(fixture(name)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RatesSourceError);
    expect((error as Error).message).toMatch(message);
    expect({ latest: rates.latest(), status: rates.status() }).toEqual(before);
  });

  it('refuses a day quoting fewer than half the currencies of the newest held', async () => {
    const rates = t.service();
    await rates.importFile(fixture('hist-wide.csv'));
    await expect(rates.importFile(fixture('daily-thin.xml'))).rejects.toThrow(/2026-04-14 quotes 2 currencies, fewer than half the 5/);
    expect(rates.latest()?.date).toBe('2026-04-13');
  });

  it('refuses publications dated after today in Berlin', async () => {
    const rates = t.service({ clock: () => new Date('2026-04-12T21:59:00Z') }); // 23:59 on the 12th in Berlin
    await expect(rates.importFile(fixture('hist-wide.csv'))).rejects.toThrow(
      /dated after today \(2026-04-12, Europe\/Berlin\): 2026-04-13/,
    );
    expect(rates.latest()).toBeUndefined();
  });
});

describe('reading', () => {
  it('loadPublications answers a batch of 1000 lookups over 50 dates with ONE store read', async () => {
    const days = madeUpDays(60);
    const file = path.join(t.dir, 'sixty.csv');
    writeFileSync(file, renderCsv(days));
    await t.service().importFile(file);

    const { cache, reads } = countingCache(path.join(t.dir, 'rates.db'));
    const rates = t.service({ cache });
    await rates.start();
    reads.get = 0;
    reads.getMany = 0;
    // As the lead uses it: one DataLoader per request over loadPublications.
    const loader = new DataLoader((dates: readonly string[]) => rates.loadPublications(dates));
    const wanted = Array.from({ length: 1000 }, (_, i) => days[i % 50]!.date);
    const found = await Promise.all(wanted.map((date) => loader.load(date)));
    expect(reads).toEqual({ get: 0, getMany: 1 });
    expect(found.map((pub) => pub?.date)).toEqual(wanted);
    expect(found[7]).toEqual(days[7]);
  });

  it('undefined for a date without a publication, in place', async () => {
    const rates = t.service();
    await rates.importFile(fixture('hist-wide.csv'));
    expect((await rates.loadPublications(['2026-04-11', '2026-04-10'])).map((pub) => pub?.date)).toEqual([undefined, '2026-04-10']);
  });
});

describe('restart and shared cache', () => {
  it('a restart serves at once from the cache with no network: start() resolves and latest() is there', async () => {
    const first = t.service();
    await first.importFile(fixture('hist-wide.csv'));
    await first.stop();

    const fetch = vi.fn(offline);
    const restarted = t.service({ fetch });
    await restarted.start();
    expect(restarted.latest()?.date).toBe('2026-04-13');
    expect(restarted.resolveDate('2026-04-11')).toBe('2026-04-10');
    await vi.waitFor(() => expect(restarted.status().lastError).toMatch(/fetch failed \(ENETUNREACH\)/), WAIT);
    expect(restarted.status()).toMatchObject({ date: '2026-04-13', stale: true });
    expect(restarted.latest()?.date).toBe('2026-04-13');
  });

  it('with nothing cached and no network, start() resolves quickly and nothing is loaded', async () => {
    const rates = t.service();
    await rates.start();
    expect(rates.latest()).toBeUndefined();
    expect(rates.knownCurrencies()).toEqual(new Set(['EUR']));
    await vi.waitFor(
      () => expect(rates.status()).toMatchObject({ date: null, stale: true, lastError: expect.stringMatching(/ENETUNREACH/) }),
      WAIT,
    );
  });

  it('imports RATES_FILE at start', async () => {
    const withFile = tempRates({ RATES_FILE: fixture('hist-90d-one-line.xml') });
    try {
      const rates = withFile.service();
      await rates.start();
      expect(rates.latest()?.date).toBe('2026-04-13');
    } finally {
      await withFile.cleanup();
    }
  });

  it('a running server notices data imported by another process (the admin CLI) on the same cache', async () => {
    const server = t.service();
    await server.start();
    const cli = t.service();
    await cli.importFile(fixture('hist-wide.csv'));
    await cli.stop();
    await vi.waitFor(() => expect(server.status()).toMatchObject({ date: '2026-04-13', fetchedAt: TUESDAY_EVENING.toISOString() }), WAIT);
    expect(server.latest()?.date).toBe('2026-04-13');
    expect(server.knownCurrencies().has('ISK')).toBe(true);
  });

  it('tells revision listeners when it reloads what another process wrote', async () => {
    const server = t.service();
    await server.start();
    const told: string[] = [];
    server.onRevision?.(() => told.push(server.latest()?.date ?? 'none'));
    const cli = t.service();
    await cli.importFile(fixture('hist-wide.csv'));
    await cli.stop();
    await vi.waitFor(() => expect(told).toEqual(['2026-04-13']), WAIT);
  });
});
