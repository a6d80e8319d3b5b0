import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { tcpProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { built } from '../helpers/built';

const run = promisify(execFile);
const FIXTURE = path.resolve('test/fixtures/ecb/hist-wide.csv');
const redisUrl = process.env.TEST_REDIS_URL;
/** A bound for something that happens in the background (a hung test), not a time budget. */
const WAIT = { timeout: 60_000, interval: 100 };

/**
 * A real server process on SQLite with REDIS_URL pointing at a TCP proxy in front of the test
 * Redis: the proxy is stopped and restarted to make Redis disappear for this server only (the
 * real Redis is never touched). The server starts while the proxy is down.
 */
describe.skipIf(!redisUrl)(
  redisUrl ? 'a server whose Redis goes away and comes back' : 'a server whose Redis goes away (skipped: set TEST_REDIS_URL to run)',
  () => {
    let proxy: TcpProxy;
    let server: ChildProcess | undefined;
    let dataDir: string;
    let base = '';
    let logs = '';
    let key = '';
    const redis = createClient({ url: redisUrl });
    const env = () => ({
      ...process.env,
      DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'info',
      REDIS_URL: proxy.url,
      RATES_FILE: FIXTURE,
      // No network: the ECB is a closed local port; the rates come from RATES_FILE.
      ECB_BASE_URL: 'http://127.0.0.1:9/ecb',
    });
    const logLines = (pattern: RegExp) => logs.split('\n').filter((line) => pattern.test(line));
    const health = async () =>
      ((await (await fetch(`${base}/v1/health`)).json()) as { data: { rateLimits: string; rates: { date: string | null } } }).data;
    /** A historical conversion (Developer plan): the publication of 2026-04-10 is read from Redis or the database. */
    const convertOnApril10 = () =>
      fetch(`${base}/v1/currency/convert`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ value: '100', from: 'EUR', to: 'USD', date: '2026-04-10' }),
      });
    const expectConverted = async () => {
      const res = await convertOnApril10();
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ data: { result: { value: '123', unit: 'USD' }, rate: { date: '2026-04-10' } } });
    };
    const cachedKeys = async () => {
      const keys: string[] = [];
      for await (const batch of redis.scanIterator({ MATCH: 'rates:pub:*', COUNT: 1000 })) keys.push(...batch);
      return keys;
    };

    beforeAll(async () => {
      await redis.connect();
      dataDir = mkdtempSync(path.join(os.tmpdir(), 'measurement-redis-'));
      proxy = await tcpProxy(redisUrl!, { running: false });
      server = spawn(process.execPath, [built('main')], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
      server.stderr!.on('data', (chunk) => (logs += chunk));
      base = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`server did not start:\n${logs}`)), 120_000);
        server!.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${logs}`)));
        server!.stdout!.on('data', (chunk: Buffer) => {
          logs += chunk;
          const port = /listening on http:\/\/[\d.]+:(\d+)/.exec(logs)?.[1];
          if (port) {
            clearTimeout(timer);
            resolve(`http://127.0.0.1:${port}`);
          }
        });
      });
      const { stdout } = await run(process.execPath, [built('admin'), 'key', 'create', '--plan', 'developer'], { env: env() });
      key = JSON.parse(stdout).key;
    });
    afterAll(async () => {
      server?.kill('SIGKILL');
      await proxy?.close();
      if (redis.isOpen) {
        const keys = await cachedKeys();
        if (keys.length > 0) await redis.del(keys);
        await redis.close();
      }
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    it('starts with Redis down: one warning line, no stack trace, rate limits in memory, rates from the database', async () => {
      expect(logLines(/Redis \(REDIS_URL\) unavailable/)).toHaveLength(1);
      // (The failed ECB refresh, a closed port here, does log its error with a stack: not Redis's.)
      expect(logLines(/[Rr]edis/).join('\n')).not.toContain('"stack"');
      expect(logs).not.toMatch(/^\s+at /m);
      expect((await health()).rateLimits).toBe('memory');
      await vi.waitFor(async () => expect((await health()).rates.date).toBe('2026-04-13'), WAIT);
      await expectConverted();
    });

    it('picks Redis up when it comes back: rate limits shared again, publications cached there', async () => {
      await proxy.start();
      await vi.waitFor(async () => expect((await health()).rateLimits).toBe('redis'), WAIT);
      await vi.waitFor(async () => {
        await expectConverted();
        expect(await redis.get('rates:pub:2026-04-10')).toContain('"USD":"1.23"');
      }, WAIT);
      expect(logLines(/Redis \(REDIS_URL\) is back/)).toHaveLength(1);
    });

    it('keeps answering when Redis loses the cached publications (flushed), and refills it from the database', async () => {
      // What FLUSHDB does to this server's cache, without wiping the counters of other suites sharing the db.
      await redis.del(await cachedKeys());
      expect(await redis.get('rates:pub:2026-04-10')).toBeNull();
      await expectConverted();
      expect(await redis.get('rates:pub:2026-04-10')).toContain('"USD":"1.23"');
      expect((await health()).rates.date).toBe('2026-04-13');
    });

    it('keeps answering while Redis is down (never a 500), logs the outage once, and recovers by itself', async () => {
      await proxy.stop();
      for (let i = 0; i < 10; i += 1) await expectConverted();
      await vi.waitFor(async () => expect((await health()).rateLimits).toBe('memory'), WAIT);
      expect(logLines(/Redis \(REDIS_URL\) unavailable/)).toHaveLength(2); // the one at start, and this outage
      expect(logs).not.toMatch(/"level":50/);
      await proxy.start();
      await vi.waitFor(async () => expect((await health()).rateLimits).toBe('redis'), WAIT);
      await expectConverted();
      expect(logLines(/Redis \(REDIS_URL\) is back/)).toHaveLength(2);
    });

    it('serves an `admin rates import` made while it runs (the CLI writes the database)', async () => {
      const corrected = path.join(dataDir, 'next.csv');
      writeFileSync(corrected, 'Date,USD,JPY,GBP,HUF,ISK,\n2026-04-14,1.2400,151,0.8650,389,140,\n');
      await run(process.execPath, [built('admin'), 'rates', 'import', corrected], { env: env() });
      await vi.waitFor(async () => expect((await health()).rates.date).toBe('2026-04-14'), WAIT);
    });
  },
);
