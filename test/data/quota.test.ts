import { spawn } from 'node:child_process';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AccountStore } from '../../src/services/account-store';
import { ApiError } from '../../src/domain/errors';
import { built } from '../helpers/built';
import { BACKENDS, type BackendInstance } from './backends';

const MONTH = '2026-03';

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(backend.title('quota'), () => {
    let instance: BackendInstance;
    let accountId: string;
    const opened: AccountStore[] = [];
    const open = () => {
      const s = instance.open();
      opened.push(s);
      return s;
    };

    /** Runs the worker in its own Node process; resolves with its exit signal and output. */
    function runWorker(args: (string | number)[]): Promise<{ signal: NodeJS.Signals | null; allowed?: number }> {
      return new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [built('quota-worker'), instance.location, accountId, ...args.map(String)], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
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

    beforeAll(async () => {
      instance = await backend.create();
    });
    afterAll(async () => {
      await instance?.destroy();
    });
    beforeEach(async () => {
      accountId = (await open().createAccount({ plan: 'free' })).id;
    });
    afterEach(async () => {
      for (const s of opened.splice(0)) await s.close();
      await instance.reset();
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

      it('lets exactly one through across two store instances on the same database', async () => {
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

    describe('consumeQuotaUpTo', () => {
      it('grants all that fits, then the rest of the month, then nothing', async () => {
        const store = opened[0]!;
        expect(await store.consumeQuotaUpTo(accountId, MONTH, 10, 4)).toEqual({ granted: 4, used: 4 });
        expect(await store.consumeQuotaUpTo(accountId, MONTH, 10, 9)).toEqual({ granted: 6, used: 10 });
        expect(await store.consumeQuotaUpTo(accountId, MONTH, 10, 1)).toEqual({ granted: 0, used: 10 });
        expect(await store.monthlyUsage(accountId, MONTH)).toBe(10);
      });

      it('grants part of a first request bigger than the whole quota', async () => {
        expect(await opened[0]!.consumeQuotaUpTo(accountId, MONTH, 5, 8)).toEqual({ granted: 5, used: 5 });
      });

      it('never grants more than the limit to parallel partial requests from two store instances', async () => {
        const [a, b] = [opened[0]!, open()];
        await a.consumeQuota(accountId, MONTH, 100, 90);
        const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).consumeQuotaUpTo(accountId, MONTH, 100, 3)));
        expect(results.reduce((sum, r) => sum + r.granted, 0)).toBe(10);
        expect(await b.monthlyUsage(accountId, MONTH)).toBe(100);
      });

      it('refuses an unknown account with NOT_FOUND', async () => {
        await expect(opened[0]!.consumeQuotaUpTo('acc_missing', MONTH, 10, 20)).rejects.toMatchObject({ code: 'NOT_FOUND' });
        await expect(opened[0]!.consumeQuotaUpTo('acc_missing', MONTH, 10, 2)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      });
    });
  });
}
