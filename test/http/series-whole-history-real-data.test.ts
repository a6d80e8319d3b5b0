import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RatesService } from '../../src/services/currency/rates';
import { tempRates, type TempRates } from '../data/rates/helpers';
import { createTestApp, type TestApp } from '../helpers/app';
import { sharedDataPresent } from '../helpers/shared-data';

// The real ECB files live beside the project (../shared/ecb); they are read, never copied in.
const DIR = resolve(process.cwd(), '../shared/ecb');
const PRESENT = sharedDataPresent(DIR);
const NOW = new Date('2026-07-07T10:00:00Z');

/** Date → [USD, JPY] as the ECB's history CSV writes them (newest first there). */
function historyCells(): Map<string, [string, string]> {
  const [header, ...lines] = readFileSync(join(DIR, 'eurofxref-hist.csv'), 'utf8').trim().split('\n');
  const columns = header!.split(',');
  const usd = columns.indexOf('USD');
  const jpy = columns.indexOf('JPY');
  return new Map(
    lines.map((line) => {
      const cells = line.split(',');
      return [cells[0]!, [cells[usd]!, cells[jpy]!]];
    }),
  );
}

describe.skipIf(!PRESENT)('a CSV of the whole history for two currencies on the real ECB history', () => {
  let t: TestApp;
  let temp: TempRates;
  let rates: RatesService;
  let key: string;

  beforeAll(async () => {
    temp = tempRates();
    rates = temp.service({ clock: () => NOW });
    await rates.importFile(join(DIR, 'eurofxref-hist.zip'));
    t = await createTestApp({ KEY_RATE_LIMIT: '1000' }, { rates, clock: () => NOW });
    key = await t.createKey('developer');
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await rates?.stop();
    await temp?.cleanup();
  });

  it('holds every publication from 1999-01-04 to the newest, in one answer, each cell as the ECB wrote it', async () => {
    const cells = historyCells();
    const dates = [...cells.keys()].sort();
    global.gc?.();
    const before = process.memoryUsage();
    let peakHeap = before.heapUsed;
    let peakRss = before.rss;
    const sampling = setInterval(() => {
      const now = process.memoryUsage();
      peakHeap = Math.max(peakHeap, now.heapUsed);
      peakRss = Math.max(peakRss, now.rss);
    }, 5);
    const res = await t.call('GET', '/v1/currency/rates/series?start=1999-01-01&symbols=USD,JPY', { key, headers: { accept: 'text/csv' } });
    clearInterval(sampling);
    expect(res.status).toBe(200);
    expect(res.headers.get('link')).toBeNull();
    const [header, ...rows] = res.text.trimEnd().split('\r\n');
    expect(header).toBe('date,base,USD,JPY');
    expect(rows).toHaveLength(dates.length);
    expect(rows[0]).toBe('1999-01-04,EUR,1.1789,133.73');
    expect(rows.at(-1)!.startsWith(`${dates.at(-1)},EUR,`)).toBe(true);
    for (const row of rows) {
      const [date, base, usd, jpy] = row.split(',');
      expect([base, usd, jpy], date).toEqual(['EUR', ...cells.get(date!)!]);
    }
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="ecb-rates-EUR-1999-01-04-${dates.at(-1)}.csv"`);
    const heapGrowthMb = (peakHeap - before.heapUsed) / 2 ** 20;
    const rssGrowthMb = (peakRss - before.rss) / 2 ** 20;
    console.log(
      `[whole-history CSV] ${rows.length} rows, ${res.text.length} bytes; peak heap +${heapGrowthMb.toFixed(1)} MB, peak RSS +${rssGrowthMb.toFixed(1)} MB over the request (test and server in one process)`,
    );
    // Loose: the answer is about 200 KB; the publications it reads are the whole history (a few MB).
    expect(heapGrowthMb).toBeLessThan(200);
  });
});
