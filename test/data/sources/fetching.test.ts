import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hang, serve, startFakePublishers, tempSources, tiny, type FakePublishers, type TempSources } from './helpers';

/** Tuesday 2026-04-14, 18:00 UTC: Monday's publications are in, Tuesday's not yet due everywhere. */
const clock = () => new Date('2026-04-14T18:00:00Z');

let fake: FakePublishers;
let t: TempSources;
beforeEach(async () => {
  fake = await startFakePublishers();
  t = tempSources({
    RATE_SOURCES: 'ecb,boc,nb,cnb',
    BOC_BASE_URL: fake.url('boc'),
    NB_BASE_URL: `${fake.url('nb')}/`,
    CNB_BASE_URL: fake.url('cnb'),
  });
});
afterEach(async () => {
  await t.cleanup();
  await fake.close();
});

describe('fetching the sources', () => {
  it('one source hanging never blocks another: the others load while its request is still open', async () => {
    const open: ServerResponse[] = [];
    fake.route('boc', (_req, res) => void open.push(res));
    fake.route('nb', serve(tiny('nb', '2026-04-13 - USD=10.5012', '2026-04-14 - USD=10.4988')));
    fake.route('cnb', serve(tiny('cnb', '2026-04-14 - EUR=24.325')));
    // A timeout far longer than the test: only independence, not a deadline, lets the others load.
    const service = t.service({ clock, fetch: globalThis.fetch, tuning: { connectTimeoutMs: 60_000, totalTimeoutMs: 60_000 } });
    await service.start();
    await expect.poll(() => service.history().latest('nb'), { timeout: 5_000 }).toBe('2026-04-14');
    await expect.poll(() => service.history().latest('cnb'), { timeout: 5_000 }).toBe('2026-04-14');
    expect(open).toHaveLength(1);
    expect(open[0]!.writableEnded).toBe(false);
    expect(service.status('boc')).toMatchObject({ lastPublication: null, lastError: null, stale: true });
    expect(service.status('nb')).toMatchObject({ lastPublication: '2026-04-14', fetchedAt: clock().toISOString(), lastError: null });
  });

  it('a source that times out reports its error and serves on; the others are untouched', async () => {
    fake.route('boc', hang);
    fake.route('nb', serve(tiny('nb', '2026-04-14 - USD=10.4988')));
    const service = t.service({ clock, fetch: globalThis.fetch });
    await service.start();
    await expect
      .poll(() => service.status('boc').lastError, { timeout: 5_000 })
      .toMatch(/^GET http:.*\/boc\/observations\/.*: no response within 1500 ms$/);
    expect(service.status('boc')).toMatchObject({ lastPublication: null, fetchedAt: null, stale: true });
    await expect.poll(() => service.status('nb').lastPublication, { timeout: 5_000 }).toBe('2026-04-14');
    expect(service.status('nb').lastError).toBeNull();
  });

  it('asks each publisher for the last ten days, at the URLs of its API under its base URL', async () => {
    const service = t.service({ clock, fetch: globalThis.fetch, tuning: { tries: 1 } });
    await service.start();
    await expect.poll(() => fake.requests.length, { timeout: 3_000 }).toBe(3);
    expect([...fake.requests].sort()).toEqual([
      '/boc/observations/group/FX_RATES_DAILY/json?start_date=2026-04-04',
      '/cnb/exrates/daily-year?year=2026&lang=EN',
      '/nb/data/EXR/B..NOK.SP?startPeriod=2026-04-04&endPeriod=2026-04-14&format=csvdata',
    ]);
  });

  it('a response that no longer parses marks that source stale with the reason, keeps what it held, and leaves the others', async () => {
    await t.service({ clock }).importFile('cnb', t.file('cnb.txt', tiny('cnb', '2026-04-14 - EUR=24.325')));
    fake.route('cnb', serve('<html>moved</html>'));
    fake.route('nb', serve(tiny('nb', '2026-04-14 - USD=10.4988')));
    const service = t.service({ clock, fetch: globalThis.fetch });
    await service.start();
    await expect.poll(() => service.status('cnb').lastError, { timeout: 3_000 }).toBe('cnb feed, line 1: expected "tiny cnb"');
    expect(service.status('cnb')).toMatchObject({ lastPublication: '2026-04-14', stale: true });
    await expect.poll(() => service.status('nb').lastPublication, { timeout: 3_000 }).toBe('2026-04-14');
    expect(service.status('nb')).toMatchObject({ stale: false, lastError: null });
  });

  it('two instances on one database fetch a publisher once between them; the other takes the result from the database; a clean stop frees the fetch', async () => {
    fake.route('nb', serve(tiny('nb', '2026-04-14 - USD=10.4988')));
    const first = t.service({ clock, fetch: globalThis.fetch, tuning: { tries: 1 } });
    await first.start();
    await expect.poll(() => first.history().latest('nb'), { timeout: 3_000 }).toBe('2026-04-14');
    const second = t.service({ clock, fetch: globalThis.fetch, tuning: { tries: 1 } });
    await second.start();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(fake.requests.filter((url) => url.startsWith('/nb/'))).toHaveLength(1);
    expect(second.history().latest('nb')).toBe('2026-04-14');
    expect(second.status('nb')).toMatchObject({ fetchedAt: clock().toISOString(), lastError: null });
    await first.stop();
    const restarted = t.service({ clock, fetch: globalThis.fetch, tuning: { tries: 1 } });
    await restarted.start();
    await expect.poll(() => fake.requests.filter((url) => url.startsWith('/nb/')).length, { timeout: 3_000 }).toBe(2);
  });

  it('RATE_SOURCES=ecb fetches no other source', async () => {
    const only = tempSources({ RATE_SOURCES: 'ecb', BOC_BASE_URL: fake.url('boc') });
    try {
      const service = only.service({ clock, fetch: globalThis.fetch });
      await service.start();
      expect(service.fetched).toEqual([]);
      expect(service.enabled()).toEqual(['ecb']);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(fake.requests).toEqual([]);
    } finally {
      await only.cleanup();
    }
  });
});
