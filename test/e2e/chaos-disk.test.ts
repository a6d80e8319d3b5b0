import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/data/sqlite-store';
import { alive, byStatus, healedAfter, maxMs, sleep, startLoad, waitFor } from '../helpers/chaos';
import { killAllServers, startServer, type ServerProcess } from '../helpers/server-process';

/**
 * A full disk under keyed load (contract section 11): one real instance on SQLite whose DATA_DIR is
 * a small tmpfs of its own, 16 keyed clients converting, and a file that takes every free byte.
 * Charges that cannot be written answer 503 SERVICE_UNAVAILABLE with Retry-After (not a 500), are
 * not counted, and the instance heals by itself once space is freed. Mounting needs root: where the
 * mount is refused the suite skips outside CI and says why; in CI it fails.
 */
const CLIENTS = 16;
const HEAL_MS = 10_000;

function mountTmpfs(dir: string): string | undefined {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', dir], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return String((error as { stderr?: Buffer }).stderr ?? error).trim() || 'mount failed';
  }
}

const probeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chaos-disk-probe-'));
const refused = mountTmpfs(probeDir);
if (refused === undefined) execFileSync('umount', [probeDir]);
fs.rmSync(probeDir, { recursive: true, force: true });
if (refused !== undefined && process.env['CI'])
  throw new Error(`chaos-disk: cannot mount a tmpfs here (${refused}); CI must run it as root`);
const title = 'a full disk under keyed load (SQLite on a small tmpfs)';

describe.skipIf(refused !== undefined)(
  refused === undefined ? title : `${title} (skipped: mounting a tmpfs was refused: ${refused})`,
  () => {
    let dir: string;
    let server: ServerProcess;
    const keys: string[] = [];
    const filler = () => path.join(dir, 'filler');

    beforeAll(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chaos-disk-'));
      expect(mountTmpfs(dir)).toBeUndefined();
      const store = openSqliteStore(path.join(dir, 'measurement.db'));
      for (let i = 0; i < CLIENTS; i++) {
        const account = await store.createAccount({ plan: 'business' });
        keys.push((await store.createKey(account.id, 'test')).key);
      }
      await store.close();
      server = await startServer({
        DATA_DIR: dir,
        ECB_BASE_URL: 'http://127.0.0.1:9/ecb',
        KEY_RATE_LIMIT: '1000000',
        PUBLIC_RATE_LIMIT: '1000000',
        LOG_LEVEL: 'info',
      });
    });
    afterAll(async () => {
      await killAllServers();
      if (dir) {
        try {
          execFileSync('umount', ['-l', dir]);
        } catch {
          // not mounted
        }
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    /** Every account's usage, as another process reads it. */
    const usage = () => {
      const db = new BetterSqlite3(path.join(dir, 'measurement.db'), { readonly: true });
      try {
        return Number((db.prepare('SELECT coalesce(sum(used), 0) AS total FROM usage').get() as { total: number }).total);
      } finally {
        db.close();
      }
    };

    /**
     * SQLite reuses its write-ahead log from the start after each checkpoint without growing it: a log
     * already at its largest would take every charge without asking for a byte. Truncated here, the
     * next charges must grow it, into the space the filler takes. Under load a TRUNCATE checkpoint can
     * find the server's writer or a reader in its way and report busy, leaving the log as it was; it is
     * asked again until it succeeds. Returns the attempts it took.
     */
    const truncateWal = (): number => {
      const db = new BetterSqlite3(path.join(dir, 'measurement.db'));
      try {
        db.pragma('busy_timeout = 2000');
        for (let attempt = 1; attempt <= 20; attempt++) {
          const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
          if (result?.busy === 0) return attempt;
        }
        throw new Error('the write-ahead log could not be truncated in 20 attempts');
      } finally {
        db.close();
      }
    };

    it('no space left: charges answer 503 + Retry-After (never 500), nothing undelivered is counted, healed within 10 s of freeing space', async () => {
      const load = startLoad([server], keys);
      await sleep(1_000);
      const truncations = truncateWal();
      const filled = performance.now();
      // Every free byte: the database's next page has nowhere to go.
      const fd = fs.openSync(filler(), 'w');
      const chunk = Buffer.alloc(1 << 20, 1);
      try {
        for (;;) fs.writeSync(fd, chunk);
      } catch (error) {
        expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
      } finally {
        fs.closeSync(fd);
      }
      const sawFull = await waitFor(() => load.answers.some((a) => a.startedAt >= filled && a.status === 503), 5_000);
      await sleep(2_000);
      fs.rmSync(filler());
      const freed = performance.now();
      await waitFor(() => healedAfter(load.answers, freed, [0]) < Infinity, 15_000);
      await sleep(2_000);
      await load.stop();
      const delivered = [...load.delivered.values()].reduce((a, b) => a + b, 0);
      const used = usage();
      const during = load.answers.filter((a) => a.startedAt >= filled && a.startedAt < freed);
      const figures = {
        fault: 'disk full (SQLite DATA_DIR on a 24 MB tmpfs)',
        walTruncations: truncations,
        answers: byStatus(load.answers),
        duringFault: byStatus(during),
        maxMs: maxMs(load.answers),
        healedMs: healedAfter(load.answers, freed, [0]),
        usage: used,
        delivered,
      };
      console.log(JSON.stringify(figures));
      expect(alive(server)).toBe(true);
      expect(sawFull).toBe(true);
      for (const answer of load.answers) {
        expect([200, 503]).toContain(answer.status);
        if (answer.status === 503) expect(answer.retryAfter).toMatch(/^\d+$/);
      }
      expect(figures.healedMs).toBeLessThanOrEqual(HEAL_MS);
      expect(used).toBe(delivered);
    });
  },
);
