import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RatesService } from '../../../src/services/currency/rates';
import {
  fixtureBytes,
  hang,
  historyZip,
  serve,
  stallBody,
  startFakeEcb,
  status,
  tempRates,
  type FakeEcb,
  type Handler,
  type TempRates,
} from './helpers';

const HISTORY = 'eurofxref-hist.zip';
const DAILY = 'eurofxref-daily.xml';
const NINETY = 'eurofxref-hist-90d.xml';

/** vi.waitFor's 1 s default is tight on a loaded 2-core CI machine. */
/** How long to wait for something that happens in the background: a bound for a hung test, not a time budget. */
const WAIT = { timeout: 60_000 };

let ecb: FakeEcb;
let t: TempRates;
let rates: RatesService;

beforeEach(async () => {
  ecb = await startFakeEcb();
  t = tempRates({ ECB_BASE_URL: ecb.url });
  rates = t.service({ fetch: globalThis.fetch });
  ecb.route(HISTORY, serve(historyZip(), { type: 'application/zip' }));
});
afterEach(async () => {
  await t.cleanup();
  await ecb.close();
});

describe('refresh from the ECB (a local stand-in server)', () => {
  it('a cold cache fetches the full history zip, then a warm one the daily file', async () => {
    expect(await rates.refresh()).toEqual({ file: `${ecb.url}/${HISTORY}`, publications: 3, added: 3, replaced: 0, newest: '2026-04-13' });
    ecb.route(DAILY, serve(fixtureBytes('daily-next.xml')));
    expect(await rates.refresh()).toMatchObject({ file: `${ecb.url}/${DAILY}`, added: 1, newest: '2026-04-14' });
    expect(rates.status()).toMatchObject({ date: '2026-04-14', stale: false, lastError: null, fetchedAt: expect.any(String) });
    expect(ecb.requests.map((r) => r.file)).toEqual([HISTORY, DAILY]);
  });

  it('after a gap (the day before the newest is missing) it also fetches the 90-day file', async () => {
    const friday = path.join(t.dir, 'friday.csv');
    writeFileSync(friday, 'Date,USD,JPY,GBP,HUF,ISK,\n2026-04-10,1.23,149.5,0.86,391,141,\n');
    await rates.importFile(friday); // held: Friday 2026-04-10 only; Monday the 13th will be missing
    ecb.route(DAILY, serve(fixtureBytes('daily-next.xml')));
    ecb.route(NINETY, serve(fixtureBytes('hist-90d-one-line.xml')));
    expect(await rates.refresh()).toMatchObject({ publications: 4, added: 3, newest: '2026-04-14' });
    expect(rates.resolveDate('2026-04-12')).toBe('2026-04-10');
    expect(ecb.requests.map((r) => r.file)).toEqual([DAILY, NINETY]);
  });

  it('a 304 after a 200 with an ETag is "nothing new": the validator is sent back and nothing changes', async () => {
    await rates.refresh();
    ecb.route(DAILY, serve(fixtureBytes('daily-next.xml'), { etag: '"v1"' }));
    await rates.refresh();
    const report = await rates.refresh();
    expect(report).toMatchObject({ publications: 0, added: 0, replaced: 0, newest: '2026-04-14' });
    expect(ecb.requests.at(-1)?.headers['if-none-match']).toBe('"v1"');
    expect(ecb.count(DAILY)).toBe(2);
    expect(rates.status()).toMatchObject({ date: '2026-04-14', lastError: null });
  });

  const faults: [string, Handler, RegExp][] = [
    ['HTTP 500 (retried, then given up)', status(500), /eurofxref-daily\.xml: HTTP 500/],
    ['HTTP 404', status(404), /HTTP 404/],
    ['no answer past the connect timeout', hang, /no response within 1500 ms/],
    ['a body that stalls past the total timeout', stallBody, /not complete within 3000 ms/],
    ['truncated XML', serve(fixtureBytes('truncated.xml')), /truncated XML/],
    ['an HTML error page with status 200', serve(fixtureBytes('error-page.html'), { type: 'text/html' }), /not an ECB XML document/],
    ['an empty body', serve(''), /the file is empty/],
    ['a publication missing half its currencies', serve(fixtureBytes('daily-thin.xml')), /quotes 2 currencies, fewer than half the 5/],
    [
      'a daily file older than the newest held',
      serve(
        fixtureBytes('hist-90d-one-line.xml')
          .toString()
          .replace(/<Cube time="2026-04-13">.*?<\/Cube>/, ''),
      ),
      /newest incoming day 2026-04-10 is older than the newest stored day 2026-04-13/,
    ],
  ];

  it.each(faults)('%s: the last good data stays served, lastError says why, and the next refresh recovers', async (_, fault, why) => {
    await rates.refresh();
    ecb.route(DAILY, fault);
    await expect(rates.refresh()).rejects.toThrow(why);
    expect(rates.latest()?.date).toBe('2026-04-13');
    expect(rates.status()).toMatchObject({ date: '2026-04-13', lastError: expect.stringMatching(why) });
    expect((await rates.loadPublications(['2026-04-10']))[0]?.rates.USD).toBe('1.23');

    ecb.route(DAILY, serve(fixtureBytes('daily-next.xml')));
    await rates.refresh();
    expect(rates.status()).toMatchObject({ date: '2026-04-14', lastError: null });
  });

  it('retries a 500 with backoff: tries requests in all', async () => {
    await rates.refresh();
    ecb.route(DAILY, status(503));
    await expect(rates.refresh()).rejects.toThrow(/HTTP 503/);
    expect(ecb.count(DAILY)).toBe(2); // FAST.tries
  });

  it('a daily file older than the newest held after a newer one is refused (a stale copy is being served)', async () => {
    await rates.refresh();
    ecb.route(DAILY, serve(fixtureBytes('daily-next.xml'), { etag: '"a"' }));
    await rates.refresh();
    ecb.route(DAILY, serve(fixtureBytes('daily-single-quotes.xml'), { etag: '"b"' }));
    await expect(rates.refresh()).rejects.toThrow(/older than the newest stored day 2026-04-14/);
    expect(rates.latest()?.date).toBe('2026-04-14');
    // The refused body’s ETag "b" was not kept: the next request still offers "a".
    await rates.refresh().catch(() => undefined);
    expect(ecb.requests.at(-1)?.headers['if-none-match']).toBe('"a"');
  });

  it('10 concurrent refresh() calls make one request per file', async () => {
    ecb.route(HISTORY, serve(historyZip(), { type: 'application/zip', delayMs: 50 }));
    const cold = await Promise.all(Array.from({ length: 10 }, () => rates.refresh()));
    expect(new Set(cold.map((r) => r.newest))).toEqual(new Set(['2026-04-13']));
    expect(ecb.count(HISTORY)).toBe(1);

    ecb.route(DAILY, serve(fixtureBytes('daily-next.xml'), { delayMs: 50 }));
    await Promise.all(Array.from({ length: 10 }, () => rates.refresh()));
    expect(ecb.count(DAILY)).toBe(1);
  });

  it('recovers by itself on the next scheduled poll once the ECB answers properly again', async () => {
    const polling = t.service({
      fetch: globalThis.fetch,
      tuning: { tries: 1, syncIntervalMs: 60_000, schedule: { graceMs: 7_200_000, pollMs: 40, pollMaxAgeSeconds: 60 } },
    });
    await polling.refresh(); // history; the 2026-04-14 publication is now due
    ecb.route(DAILY, status(500));
    await polling.start();
    await vi.waitFor(() => expect(polling.status().lastError).toMatch(/HTTP 500/), WAIT);
    expect(polling.latestMaxAgeSeconds()).toBe(60);

    ecb.route(DAILY, serve(fixtureBytes('daily-next.xml')));
    await vi.waitFor(() => expect(polling.status()).toMatchObject({ date: '2026-04-14', lastError: null }), WAIT);
    const requests = ecb.count(DAILY);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(ecb.count(DAILY)).toBe(requests); // quiet once the publication is held
    expect(polling.latestMaxAgeSeconds()).toBeGreaterThan(60);
  });
});
