import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/data/sqlite-store';
import type { AccountStore } from '../../src/services/account-store';
import { ApiError } from '../../src/domain/errors';

const MONTH = '2026-03';
const WORKER = path.join(import.meta.dirname, 'quota-worker.ts');
let dir: string;
let file: string;
let accountId: string;
const opened: AccountStore[] = [];
const open = () => {
  const s = openSqliteStore(file);
  opened.push(s);
  return s;
};

/** Runs the worker in its own Node process; resolves with its exit signal and output. */
function runWorker(args: (string | number)[]): Promise<{ signal: NodeJS.Signals | null; allowed?: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WORKER, file, accountId, ...args.map(String)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (signal) return resolve({ signal });
      if (code !== 0) return reject(new Error(`worker exited with ${code}`));
      resolve({ signal: null, allowed: (JSON.parse(out) as { allowed: number }).allowed });
    });
  });
}

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quota-'));
  file = path.join(dir, 'measurement.db');
  accountId = (await open().createAccount({ plan: 'free' })).id;
});
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('consumeQuota', () => {
  it('counts a conversion while the month stays within the limit, and refuses the one beyond it', async () => {
    const store = opened[0]!;
    expect(await store.consumeQuota(accountId, MONTH, 2)).toEqual({ allowed: true, used: 1 });
    expect(await store.consumeQuota(accountId, MONTH, 2)).toEqual({ allowed: true, used: 2 });
    expect(await store.consumeQuota(accountId, MONTH, 2)).toEqual({ allowed: false, used: 2 });
    expect(await store.monthlyUsage(accountId, MONTH)).toBe(2);
  });

  it('spends an amount all or nothing, also on the first use of a month', async () => {
    const store = opened[0]!;
    expect(await store.consumeQuota(accountId, MONTH, 5, 6)).toEqual({ allowed: false, used: 0 });
    expect(await store.consumeQuota(accountId, MONTH, 5, 4)).toEqual({ allowed: true, used: 4 });
    expect(await store.consumeQuota(accountId, MONTH, 5, 2)).toEqual({ allowed: false, used: 4 });
    expect(await store.consumeQuota(accountId, MONTH, 5, 1)).toEqual({ allowed: true, used: 5 });
    expect(await store.consumeQuota(accountId, MONTH, 0)).toEqual({ allowed: false, used: 5 });
  });

  it('lets exactly one of 20 parallel requests through when one conversion is left', async () => {
    const store = opened[0]!;
    await store.consumeQuota(accountId, MONTH, 1000, 999);
    const results = await Promise.all(Array.from({ length: 20 }, () => store.consumeQuota(accountId, MONTH, 1000)));
    expect(results.filter((r) => r.allowed)).toHaveLength(1);
    expect(await store.monthlyUsage(accountId, MONTH)).toBe(1000);
  });

  it('lets exactly one through across two store instances on the same file', async () => {
    const [a, b] = [opened[0]!, open()];
    await a.consumeQuota(accountId, MONTH, 1000, 999);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).consumeQuota(accountId, MONTH, 1000)));
    expect(results.filter((r) => r.allowed)).toHaveLength(1);
    expect(await b.monthlyUsage(accountId, MONTH)).toBe(1000);
  });

  it('never spends more than the limit when four processes race for the last conversion', async () => {
    // 300 months with a limit of 1: 300 races, each of which exactly one process may win.
    const startAt = Date.now() + 2000;
    const runs = await Promise.all(Array.from({ length: 4 }, () => runWorker([300, 1, startAt])));
    expect(runs.reduce((sum, r) => sum + r.allowed!, 0)).toBe(300);
    expect(await opened[0]!.monthlyUsage(accountId, '2000-01')).toBe(1);
    expect(await opened[0]!.monthlyUsage(accountId, '2024-12')).toBe(1);
  });

  it('starts every UTC month from zero and keeps the months apart', async () => {
    const store = opened[0]!;
    await store.consumeQuota(accountId, '2026-12', 3, 3);
    expect(await store.consumeQuota(accountId, '2026-12', 3)).toEqual({ allowed: false, used: 3 });
    expect(await store.consumeQuota(accountId, '2027-01', 3)).toEqual({ allowed: true, used: 1 });
    expect(await store.monthlyUsage(accountId, '2026-12')).toBe(3);
  });

  it('keeps committed usage after close and reopen', async () => {
    await opened[0]!.consumeQuota(accountId, MONTH, 10, 7);
    await opened[0]!.close();
    expect(await open().monthlyUsage(accountId, MONTH)).toBe(7);
  });

  it('keeps committed usage when the process is killed without closing the database', async () => {
    const run = await runWorker([3, 100, 0, 'crash']);
    expect(run.signal).toBe('SIGKILL');
    const store = open();
    expect([await store.monthlyUsage(accountId, '2000-01'), await store.monthlyUsage(accountId, '2000-03')]).toEqual([1, 1]);
  });

  it('refuses an unknown account with NOT_FOUND and malformed arguments with a TypeError', async () => {
    const store = opened[0]!;
    await expect(store.consumeQuota('acc_missing', MONTH, 10)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(store.consumeQuota('acc_missing', MONTH, 10)).rejects.toBeInstanceOf(ApiError);
    await expect(store.consumeQuota(accountId, '2026-3', 10)).rejects.toThrow(TypeError);
    await expect(store.consumeQuota(accountId, MONTH, 10, 0)).rejects.toThrow(TypeError);
    await expect(store.consumeQuota(accountId, MONTH, -1)).rejects.toThrow(TypeError);
  });
});
