import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createClient, type RedisClientType } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentMonth } from '../../src/domain/quota';
import { PLANS } from '../../src/domain/plans';
import { POSTGRES_MIGRATIONS } from '../../src/data/postgres-migrations';
import { freshDatabase, postgresTitle, TEST_DATABASE_URL, type FreshDatabase } from '../helpers/postgres';
import { admin, killAllServers, startServer, type ServerProcess } from '../helpers/server-process';

/**
 * Three real server processes on one fresh PostgreSQL database and one Redis database, as operators
 * run them behind a load balancer: keys made by the CLI work everywhere, the quota is exact across
 * instances, revocation and rotation are refused at once on every instance, rates imported once by
 * the CLI are served by all three, a kill -9 under load loses no usage, and neither PostgreSQL nor
 * Redis holds a key in plaintext.
 */
const REDIS = process.env['TEST_REDIS_URL'] ? instancesRedis(process.env['TEST_REDIS_URL']) : undefined;

/**
 * A Redis database of its own, next to TEST_REDIS_URL's: the rates cache keeps publications under a
 * fixed prefix, and another suite's made-up rates for the same dates must not be served here.
 */
function instancesRedis(url: string): string {
  const parsed = new URL(url);
  const db = Number(parsed.pathname.slice(1) || 0);
  parsed.pathname = `/${db === 15 ? 14 : db + 1}`;
  return parsed.toString();
}

describe.skipIf(!TEST_DATABASE_URL)(postgresTitle('three instances on one PostgreSQL database'), () => {
  let database: FreshDatabase;
  let db: pg.Pool;
  const dirs: string[] = [];
  let servers: ServerProcess[] = [];
  const keys: string[] = [];
  let env: Record<string, string>;

  beforeAll(async () => {
    database = await freshDatabase();
    db = new pg.Pool({ connectionString: database.url, max: 2 });
    // An idle client cut by the server (the database dropped WITH (FORCE) at the end) must not be an uncaught error.
    db.on('error', () => undefined);
    env = {
      DATABASE_URL: database.url,
      // No network: the ECB is a closed local port (the rates are not what this test is about).
      ECB_BASE_URL: 'http://127.0.0.1:9/ecb',
      KEY_RATE_LIMIT: '1000000',
      LOG_LEVEL: 'warn',
      ...(REDIS ? { REDIS_URL: REDIS } : {}),
    };
    if (REDIS) await redisKeys(async (client, found) => void (found.length && (await client.del(found))));
    // Started together: the migrations race under the advisory lock.
    servers = await Promise.all(
      [0, 1, 2].map(() => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'instances-'));
        dirs.push(dir);
        return startServer({ ...env, DATA_DIR: dir, LOG_LEVEL: 'info' });
      }),
    );
  });
  afterAll(async () => {
    await killAllServers();
    if (REDIS) await redisKeys(async (client, found) => void (found.length && (await client.del(found))));
    await db?.end();
    await database?.drop();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  const cli = async (...args: string[]) => admin(args, env);
  /** Runs `each` over the Redis database's keys, in batches (this suite's database only). */
  async function redisKeys(each: (client: RedisClientType, keys: string[]) => Promise<void>) {
    const client = createClient({ url: REDIS });
    await client.connect();
    try {
      for await (const found of client.scanIterator({ COUNT: 1000 })) await each(client, found);
    } finally {
      await client.close();
    }
  }
  const newKey = async (plan: 'free' | 'developer' | 'business') => {
    const created = (await cli('key', 'create', '--plan', plan)) as { key: string; id: string; accountId: string };
    keys.push(created.key);
    return created;
  };
  const convert = (server: ServerProcess, key: string) =>
    fetch(`${server.base}/v1/convert?value=1&from=mile&to=km`, { headers: { authorization: `Bearer ${key}` } }).then(async (res) => {
      await res.arrayBuffer();
      return res.status;
    });

  it('applies the schema once although three instances started together', async () => {
    const { rows } = await db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual(POSTGRES_MIGRATIONS.map((_, i) => i + 1));
  });

  it('a key made by the CLI works on all three', async () => {
    const { key } = await newKey('free');
    expect(await Promise.all(servers.map((s) => convert(s, key)))).toEqual([200, 200, 200]);
  });

  it('three trials of 20 requests racing across the instances for the last conversion: exactly one 200 each', async () => {
    const limit = PLANS.free.monthlyQuota;
    for (let trial = 0; trial < 3; trial++) {
      const { key, accountId } = await newKey('free');
      await db.query('INSERT INTO usage (account_id, month, used) VALUES ($1, $2, $3)', [accountId, currentMonth(new Date()), limit - 1]);
      const statuses = await Promise.all(Array.from({ length: 20 }, (_, i) => convert(servers[i % 3]!, key)));
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 429)).toHaveLength(19);
      const { rows } = await db.query<{ used: string }>('SELECT used FROM usage WHERE account_id = $1', [accountId]);
      expect(rows.map((r) => Number(r.used))).toEqual([limit]);
    }
  });

  it('a CLI revocation is refused on all three by the very next request', async () => {
    const { key, id } = await newKey('developer');
    expect(await Promise.all(servers.map((s) => convert(s, key)))).toEqual([200, 200, 200]); // cached everywhere
    await cli('key', 'revoke', '--id', id);
    expect(await Promise.all(servers.map((s) => convert(s, key)))).toEqual([401, 401, 401]);
  });

  it('a CLI rotation: the old key is refused on all three at once, the new one works on all three', async () => {
    const { key, id } = await newKey('developer');
    expect(await Promise.all(servers.map((s) => convert(s, key)))).toEqual([200, 200, 200]);
    const rotated = (await cli('key', 'rotate', '--id', id)) as { key: string };
    keys.push(rotated.key);
    expect(await Promise.all(servers.map((s) => convert(s, key)))).toEqual([401, 401, 401]);
    expect(await Promise.all(servers.map((s) => convert(s, rotated.key)))).toEqual([200, 200, 200]);
  });

  it('rates imported once by the CLI are served by all three (NOTIFY; at the latest by the 5 s revision check)', async () => {
    const health = async (server: ServerProcess) =>
      ((await (await fetch(`${server.base}/v1/health`)).json()) as { data: { rates: { date: string | null }; rateLimits: string } }).data;
    expect((await Promise.all(servers.map(health))).map((h) => h.rates.date)).toEqual([null, null, null]);
    const report = (await cli('rates', 'import', path.resolve('test/fixtures/ecb/hist-wide.csv'))) as { newest: string };
    expect(report.newest).toBe('2026-04-13');
    const deadline = Date.now() + 15_000;
    let dates: (string | null)[] = [];
    while (Date.now() < deadline) {
      dates = (await Promise.all(servers.map(health))).map((h) => h.rates.date);
      if (dates.every((date) => date === '2026-04-13')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(dates).toEqual(['2026-04-13', '2026-04-13', '2026-04-13']);
    if (REDIS) expect((await Promise.all(servers.map(health))).map((h) => h.rateLimits)).toEqual(['redis', 'redis', 'redis']);
    // A historical conversion (a publication read through Redis, or the database) gives one answer everywhere.
    const { key } = await newKey('developer');
    const answers = await Promise.all(
      servers.map(async (server) => {
        const res = await fetch(`${server.base}/v1/currency/convert`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ value: '100', from: 'USD', to: 'GBP', date: '2026-04-10' }),
        });
        return { status: res.status, body: (await res.json()) as { data?: { result?: unknown; rate?: { date?: string } } } };
      }),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(answers[0]!.body.data?.rate?.date).toBe('2026-04-10');
    expect(new Set(answers.map((a) => JSON.stringify(a.body.data))).size).toBe(1);
  });

  it('kill -9 of one instance under load: usage = conversions delivered + at most the requests in flight on the killed one', async () => {
    const { key, accountId } = await newKey('business');
    const victim = servers[2]!;
    const PER_INSTANCE = 4;
    let delivered = 0;
    let failedOnVictim = 0;
    let stop = false;
    // Each worker keeps one request in flight on its instance; a victim's worker stops at its first
    // failure, so the failures counted are exactly the requests in flight when it died.
    const worker = async (server: ServerProcess) => {
      while (!stop) {
        try {
          const status = await convert(server, key);
          if (status === 200) delivered++;
          else throw new Error(`unexpected status ${status}`);
        } catch (error) {
          if (server !== victim) throw error;
          failedOnVictim++;
          return;
        }
      }
    };
    const load = Promise.all(servers.flatMap((server) => Array.from({ length: PER_INSTANCE }, () => worker(server))));
    // Kill once every instance has served a good number of requests.
    while (delivered < 300) await new Promise((r) => setTimeout(r, 20));
    await victim.kill('SIGKILL');
    const afterKill = delivered;
    while (delivered < afterKill + 200) await new Promise((r) => setTimeout(r, 20));
    stop = true;
    await load;

    const { rows } = await db.query<{ used: string }>('SELECT used FROM usage WHERE account_id = $1', [accountId]);
    const used = Number(rows[0]!.used);
    expect(failedOnVictim).toBeLessThanOrEqual(PER_INSTANCE);
    expect(used).toBeGreaterThanOrEqual(delivered);
    expect(used - delivered).toBeLessThanOrEqual(failedOnVictim);
    servers = servers.slice(0, 2);
  });

  it('no table holds a plaintext key (every row of every table, as text)', async () => {
    expect(keys.length).toBeGreaterThan(5);
    const { rows: tables } = await db.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
    );
    let text = '';
    for (const { table_name } of tables) {
      const { rows } = await db.query<{ row: string }>(`SELECT t::text AS row FROM "${table_name}" t`);
      text += rows.map((r) => r.row).join('\n');
    }
    expect(text).toContain('key_'); // the scan reads the keys table
    for (const key of keys) {
      expect(text).not.toContain(key);
      expect(text).not.toContain(key.slice(9, 52));
    }
  });

  it.skipIf(!REDIS)('no Redis key or value holds a plaintext key', async () => {
    let text = '';
    await redisKeys(async (client, found) => {
      for (const name of found) {
        const type = await client.type(name);
        const value = type === 'string' ? await client.get(name) : type === 'hash' ? JSON.stringify(await client.hGetAll(name)) : '';
        text += `${name}\n${value ?? ''}\n`;
      }
    });
    expect(text).toContain('pub'); // the scan reads the rates cache
    for (const key of keys) {
      expect(text).not.toContain(key);
      expect(text).not.toContain(key.slice(9, 52));
    }
  });
});
