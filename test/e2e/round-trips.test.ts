import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { migrateDatabase, openStore } from '../../src/data/open-store';
import { parseTrustProxy } from '../../src/domain/client-ip';
import { keyEnvFor } from '../../src/domain/keys';
import { PLANS } from '../../src/domain/plans';
import { createHttpServer } from '../../src/http/front/node-server';
import { createRateLimiters, type RateLimiters } from '../../src/http/limits/rate-limit';
import { createLogger } from '../../src/logger';
import type { AccountStore } from '../../src/services/account-store';
import { freshDatabase, postgresTitle, TEST_DATABASE_URL, type FreshDatabase } from '../helpers/postgres';
import { tableRates } from '../helpers/table-rates';

/**
 * Round trips per keyed request on the production configuration (PostgreSQL + Redis): the SQL
 * statements the app's pg clients send (counted client side: every pg Client's query) and the
 * Redis commands on the rate-limit counters (counted by MONITOR on a connection of the test's own)
 * over N keyed GET /v1/convert requests from several concurrent clients. The bounds hold what the
 * design gives with a margin, and break when a per-turn round trip becomes a per-request one.
 */
const REDIS_URL = process.env['TEST_REDIS_URL'];
if (!REDIS_URL && process.env['CI']) throw new Error('TEST_REDIS_URL is unset: CI must run the Redis suites (.ci/run sets it).');

const CLIENTS = 8;
const PER_CLIENT = 40;
const CONVERT = '/v1/convert?value=12.5&from=inch&to=centimeter';
const CONVERT_QUERY = '{ convert(value: "12.5", from: "inch", to: "centimeter") { result { value } } }';
/** Redis commands per request when every client sends the same key: one per turn, not per request. */
const REDIS_ONE_KEY = 0.5;

/** Every statement any pg Client of this process sends, by its text. */
function countStatements() {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  const seen: string[] = [];
  let counting = false;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const config = args[0];
    if (counting)
      seen.push(
        typeof config === 'string'
          ? config
          : String((config as { text?: unknown; name?: unknown } | null)?.text ?? (config as { name?: unknown } | null)?.name ?? '?'),
      );
    return original.apply(this, args);
  };
  return {
    start: () => {
      seen.length = 0;
      counting = true;
    },
    stop: () => {
      counting = false;
      return [...seen];
    },
    restore: () => {
      proto.query = original;
    },
  };
}

const title = REDIS_URL
  ? postgresTitle('round trips per keyed request on PostgreSQL + Redis')
  : 'round trips per keyed request on PostgreSQL + Redis (skipped: set TEST_DATABASE_URL and TEST_REDIS_URL, e.g. redis://127.0.0.1:6379/15, to run)';

describe.skipIf(!TEST_DATABASE_URL || !REDIS_URL)(title, () => {
  let database: FreshDatabase;
  let dataDir: string;
  let store: AccountStore;
  let limiters: RateLimiters;
  let server: Server;
  let base: string;
  let monitor: ReturnType<typeof createClient>;
  const prefix = `msr:rt:${randomBytes(4).toString('hex')}`;
  const statements = countStatements();
  let redisCommands: string[] = [];
  let apiEnv: 'development' | 'production' = 'development';
  let countingRedis = false;

  beforeAll(async () => {
    database = await freshDatabase();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'round-trips-'));
    const config = loadConfig({
      DATA_DIR: dataDir,
      DATABASE_URL: database.url,
      REDIS_URL: REDIS_URL!,
      LOG_LEVEL: 'silent',
      KEY_RATE_LIMIT: '1000000',
    });
    apiEnv = config.apiEnv;
    await migrateDatabase(config);
    store = openStore(config);
    limiters = await createRateLimiters({ publicPerMinute: 1_000_000, keyPerSecond: 1_000_000, redisUrl: REDIS_URL!, keyPrefix: prefix });
    expect(limiters.countedIn()).toBe('redis');
    const logger = createLogger('silent');
    const app = createApp({ config, store, rates: tableRates([]), limiters, logger });
    server = createHttpServer({ front: app.front, logger, metricsAccess: config.metrics, trust: parseTrustProxy(config.trustProxy) });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    monitor = createClient({ url: REDIS_URL! });
    await monitor.connect();
    await monitor.monitor((line) => {
      // Only the commands a client sent on this suite's counters (other suites may share the Redis
      // server), not those a script ran inside Redis (MONITOR shows them as `[db lua]`).
      if (countingRedis && line.includes(prefix) && !/^\S+ \[\d+ lua\]/.test(line)) redisCommands.push(line);
    });
  });

  afterAll(async () => {
    statements.restore();
    await monitor?.destroy();
    server?.closeAllConnections();
    server?.close();
    await limiters?.close();
    await store?.close();
    await database?.drop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** CLIENTS loops, each sending PER_CLIENT requests one after the other; every answer must be 200. */
  async function load(keys: readonly string[], graphql: boolean): Promise<number> {
    let sent = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        for (let i = 0; i < PER_CLIENT; i += 1) {
          const authorization = `Bearer ${keys[c % keys.length]}`;
          const response = graphql
            ? await fetch(`${base}/graphql`, {
                method: 'POST',
                headers: { authorization, 'content-type': 'application/json' },
                body: JSON.stringify({ query: CONVERT_QUERY }),
              })
            : await fetch(base + CONVERT, { headers: { authorization } });
          const body = await response.text();
          expect(response.status, body).toBe(200);
          sent += 1;
        }
      }),
    );
    return sent;
  }

  async function measure(keys: readonly string[], graphql = false) {
    // Warm: the keys cached, the charge function created, the connections open.
    await load(keys, graphql);
    redisCommands = [];
    statements.start();
    countingRedis = true;
    const sent = await load(keys, graphql);
    // MONITOR's lines arrive after the answers: wait until the count stops moving.
    let before = -1;
    while (before !== redisCommands.length) {
      before = redisCommands.length;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    countingRedis = false;
    const sql = statements.stop();
    return { sent, sqlPerRequest: sql.length / sent, redisPerRequest: redisCommands.length / sent, sql, redis: redisCommands };
  }

  async function newKeys(n: number): Promise<string[]> {
    const keys: string[] = [];
    for (let i = 0; i < n; i += 1) {
      const account = await store.createAccount({ plan: 'business' });
      keys.push((await store.createKey(account.id, keyEnvFor(apiEnv))).key);
    }
    return keys;
  }

  it('one key on every client: a statement per turn, shared by the requests of the turn', async () => {
    const result = await measure(await newKeys(1));
    expect(result.sent).toBe(CLIENTS * PER_CLIENT);
    // A turn's requests share its revision read and its one charge (group commit): a statement per
    // request more (a revision read or a key lookup each) would pass the bound.
    expect(result.sqlPerRequest, result.sql.slice(0, 20).join('\n')).toBeLessThanOrEqual(0.6);
    expect(result.sqlPerRequest).toBeGreaterThan(0);
    // One statement per turn: the charge reads the keys revision itself, so a turn whose requests
    // all charge sends no revision read of its own (nor any other statement).
    expect(
      result.sql.filter((sql) => !sql.includes('charge_quota')),
      result.sql.slice(0, 20).join('\n'),
    ).toEqual([]);
    expect(result.redisPerRequest, result.redis.slice(0, 5).join('\n')).toBeLessThanOrEqual(REDIS_ONE_KEY);
    expect(result.redisPerRequest).toBeGreaterThan(0);
    process.stdout.write(
      `round trips, 1 key: ${result.sqlPerRequest.toFixed(2)} SQL and ${result.redisPerRequest.toFixed(2)} Redis per request\n`,
    );
  });

  it('POST /graphql convert: the same bounds with one key (the directive spends by the turn too)', async () => {
    const result = await measure(await newKeys(1), true);
    expect(result.sqlPerRequest, result.sql.slice(0, 20).join('\n')).toBeLessThanOrEqual(0.6);
    expect(result.redisPerRequest, result.redis.slice(0, 5).join('\n')).toBeLessThanOrEqual(REDIS_ONE_KEY);
    expect(result.redisPerRequest).toBeGreaterThan(0);
    process.stdout.write(
      `round trips, GraphQL, 1 key: ${result.sqlPerRequest.toFixed(2)} SQL and ${result.redisPerRequest.toFixed(2)} Redis per request\n`,
    );
  });

  const month = () => new Date().toISOString().slice(0, 7);
  const get = async (target: string, key: string) => {
    const response = await fetch(base + target, { headers: { authorization: `Bearer ${key}` } });
    return { status: response.status, headers: response.headers, body: await response.text() };
  };

  it('a key revoked after it was cached: the next convert is refused 401 and charges nothing', async () => {
    const account = await store.createAccount({ plan: 'business' });
    const created = await store.createKey(account.id, keyEnvFor(apiEnv));
    expect((await get(CONVERT, created.key)).status).toBe(200);
    const used = await store.monthlyUsage(account.id, month());
    // Another process's revocation: this server's key cache is not told, only the revision moves.
    await store.revokeKey(created.record.id);
    const refused = await get(CONVERT, created.key);
    expect(refused.status, refused.body).toBe(401);
    expect(JSON.parse(refused.body).error.code).toBe('UNAUTHORIZED');
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(await store.monthlyUsage(account.id, month())).toBe(used);
  });

  it('a key revoked after it was cached: an answer that charges nothing (a bad input) is refused 401 too', async () => {
    const account = await store.createAccount({ plan: 'business' });
    const created = await store.createKey(account.id, keyEnvFor(apiEnv));
    expect((await get(CONVERT, created.key)).status).toBe(200);
    const bad = '/v1/convert?value=twelve&from=inch&to=centimeter';
    expect((await get(bad, created.key)).status).toBe(400);
    await store.revokeKey(created.record.id);
    const refused = await get(bad, created.key);
    expect(refused.status, refused.body).toBe(401);
  });

  it('a plan changed after the key was cached: the next convert is charged and answered under the new plan', async () => {
    const email = `rt-${randomBytes(4).toString('hex')}@example.com`;
    const account = await store.createAccount({ email, plan: 'free' });
    const created = await store.createKey(account.id, keyEnvFor(apiEnv));
    const first = await get(CONVERT, created.key);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-quota-limit')).toBe(String(PLANS.free.monthlyQuota));
    await store.setPlan(email, 'business');
    const next = await get(CONVERT, created.key);
    expect(next.status, next.body).toBe(200);
    expect(next.headers.get('x-quota-limit')).toBe(String(PLANS.business.monthlyQuota));
    expect(next.headers.get('x-quota-remaining')).toBe(String(PLANS.business.monthlyQuota - 2));
    expect(await store.monthlyUsage(account.id, month())).toBe(2);
  });

  it('a key per client: a charge per account and turn, at most one Redis command per request', async () => {
    const result = await measure(await newKeys(CLIENTS));
    expect(result.sqlPerRequest, result.sql.slice(0, 20).join('\n')).toBeLessThanOrEqual(1.6);
    expect(
      result.sql.filter((sql) => !sql.includes('charge_quota')),
      result.sql.slice(0, 20).join('\n'),
    ).toEqual([]);
    expect(result.redisPerRequest, result.redis.slice(0, 5).join('\n')).toBeLessThanOrEqual(1);
    process.stdout.write(
      `round trips, ${CLIENTS} keys: ${result.sqlPerRequest.toFixed(2)} SQL and ${result.redisPerRequest.toFixed(2)} Redis per request\n`,
    );
  });
});
