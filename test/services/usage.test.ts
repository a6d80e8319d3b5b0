import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/data/sqlite-store';
import type { AccountStore, DailyRefusals } from '../../src/services/account-store';
import { createRefusalRecorder, usageReport } from '../../src/services/usage';

let dir: string;
let real: AccountStore;
let now: Date;
let writes: (readonly DailyRefusals[])[];
let failures: number;
/** The real store, with its recordRefusals calls recorded, failing the next `failures` of them. */
let store: AccountStore;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'usage-'));
  real = openSqliteStore(path.join(dir, 'measurement.db'));
  writes = [];
  failures = 0;
  store = {
    ...real,
    recordRefusals: async (refusals) => {
      writes.push(structuredClone(refusals));
      if (failures > 0) {
        failures--;
        throw new Error('disk full');
      }
      return real.recordRefusals(refusals);
    },
  };
  now = new Date('2026-03-31T23:59:59.000Z');
});
afterEach(async () => {
  await real.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('refusals by day', () => {
  it('are never written on the request path; a turn’s refusals become one write, summed per account and day', async () => {
    const [a, b] = [await real.createAccount({ plan: 'free' }), await real.createAccount({ plan: 'free' })];
    const recorder = createRefusalRecorder(
      store,
      () => now,
      (error) => {
        throw error;
      },
    );
    recorder.refused(a.id, 'quota');
    recorder.refused(a.id, 'quota');
    recorder.refused(a.id, 'rate', 3);
    recorder.refused(b.id, 'rate');
    now = new Date('2026-04-01T00:00:00.000Z');
    recorder.refused(a.id, 'quota');
    expect(writes).toHaveLength(0);
    await recorder.flush();
    expect(writes).toEqual([
      [
        { accountId: a.id, day: '2026-03-31', quota: 2, rate: 3 },
        { accountId: b.id, day: '2026-03-31', quota: 0, rate: 1 },
        { accountId: a.id, day: '2026-04-01', quota: 1, rate: 0 },
      ],
    ]);
    await turn();
    expect(writes).toHaveLength(1);
    expect(await real.dailyUsage(a.id, '2026-03-31', '2026-04-01')).toEqual([
      { day: '2026-03-31', delivered: 0, refusedQuota: 2, refusedRate: 3 },
      { day: '2026-04-01', delivered: 0, refusedQuota: 1, refusedRate: 0 },
    ]);
  });

  it('a failed write is reported and its counts are written with the next one, none lost or doubled', async () => {
    const account = await real.createAccount({ plan: 'free' });
    const errors: unknown[] = [];
    const recorder = createRefusalRecorder(
      store,
      () => now,
      (error) => errors.push(error),
    );
    failures = 1;
    recorder.refused(account.id, 'rate', 2);
    await recorder.flush();
    expect(errors).toEqual([new Error('disk full')]);
    recorder.refused(account.id, 'rate');
    await recorder.flush();
    expect(writes.at(-1)).toEqual([{ accountId: account.id, day: '2026-03-31', quota: 0, rate: 3 }]);
    expect(await real.dailyUsage(account.id, '2026-03-31', '2026-03-31')).toEqual([
      { day: '2026-03-31', delivered: 0, refusedQuota: 0, refusedRate: 3 },
    ]);
  });
});

describe('usageReport', () => {
  it('is this month’s quota and 31 days ending today, oldest first, days without use as zeros', async () => {
    const account = await real.createAccount({ plan: 'free' });
    await real.consumeQuotaUpTo(account.id, '2026-03', 1000, 4, undefined, undefined, '2026-03-30');
    await real.consumeQuotaUpTo(account.id, '2026-02', 1000, 9, undefined, undefined, '2026-02-28');
    const report = await usageReport(real, account, now);
    expect(report.quota).toEqual({ limit: 1000, used: 4, remaining: 996, reset: '2026-04-01T00:00:00.000Z' });
    expect(report.days.map((d) => d.day)).toEqual(Array.from({ length: 31 }, (_, i) => `2026-03-${String(i + 1).padStart(2, '0')}`));
    expect(report.days.filter((d) => d.delivered > 0)).toEqual([{ day: '2026-03-30', delivered: 4, refusedQuota: 0, refusedRate: 0 }]);
  });

  it('never reports a negative remaining quota (a plan lowered below what was used)', async () => {
    const account = await real.createAccount({ plan: 'free' });
    await real.consumeQuota(account.id, '2026-03', 5000, 1200);
    expect((await usageReport(real, account, now)).quota).toMatchObject({ used: 1200, remaining: 0 });
  });
});
