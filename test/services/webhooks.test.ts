import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresPool } from '../../src/data/postgres-store';
import { migratePostgres } from '../../src/data/postgres-migrations';
import { postWebhook } from '../../src/data/webhook-http';
import { secretBox } from '../../src/domain/secret-box';
import { currentMonth } from '../../src/domain/quota';
import { NO_EGRESS_PROXY } from '../../src/domain/egress-proxy';
import { webhookUrlPolicy } from '../../src/domain/webhook-urls';
import type { AccountStore } from '../../src/services/account-store';
import { createWebhookDispatcher, type WebhookDispatcher, type WebhookDispatcherOptions } from '../../src/services/webhook-dispatcher';
import { createTestApp, type TestApp } from '../helpers/app';
import { freshDatabase, postgresTitle, TEST_DATABASE_URL, type FreshDatabase } from '../helpers/postgres';
import { eventually, webhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

/**
 * Quota alerts as signed Standard Webhooks, end to end on each database: real apps charging a free
 * key with batches over HTTP, the outbox in SQLite or PostgreSQL, a dispatcher posting to a local
 * receiver, and the `standardwebhooks` library verifying what arrived.
 */
const KEY = randomBytes(32);
const ENV = { WEBHOOK_SECRET_KEY: KEY.toString('base64') };
const FAST = { baseDelayMs: 40, maxDelayMs: 200, giveUpAfterMs: 60_000 };
const silent = { warn: () => undefined, debug: () => undefined };
/** A circuit that stays closed: these tests restart the receiver after a few failures, and an open circuit would hold the retries for its cool-down. */
const NO_CIRCUIT = { failuresToOpen: 1_000, cooldownMs: 30_000, maxCooldownMs: 600_000 };

function dispatcherFor(store: AccountStore, options: Partial<WebhookDispatcherOptions> = {}): WebhookDispatcher {
  return createWebhookDispatcher({
    store: store.webhooks,
    secrets: () => secretBox(KEY),
    post: (url, headers, body) =>
      postWebhook(url, headers, body, { policy: webhookUrlPolicy('development'), egress: NO_EGRESS_PROXY, timeoutMs: 5_000 }),
    clock: () => new Date(),
    log: silent,
    schedule: FAST,
    sweepMs: 60_000,
    ...options,
  });
}

/** A batch of `n` unit conversions (one quota unit each). */
const batch = (n: number) => ({ items: Array.from({ length: n }, (_, i) => ({ value: String(i + 1), from: 'mile', to: 'km' })) });

interface Database {
  env: Record<string, string>;
  /** The endpoint's secret column as stored. */
  storedSecret(endpointId: string): Promise<string>;
  drop(): Promise<void>;
}

async function database(kind: 'sqlite' | 'postgres'): Promise<Database> {
  if (kind === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webhooks-'));
    const file = path.join(dir, 'measurement.db');
    const storedSecret = async (id: string) => {
      const raw = new BetterSqlite3(file, { readonly: true });
      try {
        return raw.prepare<[string], { secret: string }>('SELECT secret FROM webhook_endpoints WHERE id = ?').get(id)!.secret;
      } finally {
        raw.close();
      }
    };
    return { env: { ...ENV, DATABASE_URL: file }, storedSecret, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const fresh: FreshDatabase = await freshDatabase();
  const pool = createPostgresPool(fresh.url, { max: 1 });
  await migratePostgres(pool);
  const storedSecret = async (id: string) =>
    (await pool.query<{ secret: string }>('SELECT secret FROM webhook_endpoints WHERE id = $1', [id])).rows[0]!.secret;
  return {
    env: { ...ENV, DATABASE_URL: fresh.url },
    storedSecret,
    drop: async () => {
      await pool.end();
      await fresh.drop();
    },
  };
}

/** The types of the events written for an account, as its endpoints' listing shows them. */
async function eventTypes(t: TestApp, accountId: string): Promise<string[]> {
  const list = await t.app.services.webhooks.list(accountId);
  return list.flatMap((endpoint) => endpoint.deliveries.map((delivery) => delivery.type));
}

for (const kind of ['sqlite', 'postgres'] as const) {
  const title =
    kind === 'sqlite' ? 'quota alerts as signed webhooks (SQLite)' : postgresTitle('quota alerts as signed webhooks (PostgreSQL)');
  describe.skipIf(kind === 'postgres' && !TEST_DATABASE_URL)(title, () => {
    let db: Database;
    let receiver: WebhookReceiver;
    const closing: (() => Promise<unknown>)[] = [];
    beforeAll(async () => {
      db = await database(kind);
      receiver = await webhookReceiver();
    });
    afterEach(async () => {
      for (const close of closing.splice(0).reverse()) await close();
      receiver.received.length = 0;
      await receiver.start().catch(() => undefined);
    });
    afterAll(async () => {
      await receiver?.stop();
      await db?.drop();
    });
    const app = async () => {
      const t = await createTestApp(db.env);
      closing.push(() => t.close());
      return t;
    };
    const running = (store: AccountStore, options: Partial<WebhookDispatcherOptions> = {}) => {
      const dispatcher = dispatcherFor(store, options);
      dispatcher.start();
      closing.push(() => dispatcher.stop());
      return dispatcher;
    };

    it('a free key driven past 80 % and 100 % with batches: exactly one signed event each, verified with standardwebhooks', async () => {
      const t = await app();
      const { key, account } = await t.createAccountKey('free');
      const { secret, endpoint } = await t.app.services.webhooks.add({ accountId: account.id, url: receiver.url });
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
      for (let i = 0; i < 5; i++) expect((await t.call('POST', '/v1/batch', { key, body: batch(300) })).status).toBe(200);
      running(t.store);
      await eventually(() => receiver.received.length >= 2);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(receiver.received).toHaveLength(2);
      const verifier = new Webhook(secret);
      const payloads = receiver.received.map(
        ({ headers, body }) => verifier.verify(body, headers) as { type: string; timestamp: string; data: Record<string, unknown> },
      );
      const month = currentMonth(new Date());
      expect(payloads.map((p) => p.data).sort((a, b) => Number(a.threshold) - Number(b.threshold))).toEqual([
        { accountId: account.id, threshold: 80, used: 900, limit: 1000, period: month },
        { accountId: account.id, threshold: 100, used: 1000, limit: 1000, period: month },
      ]);
      expect(payloads.every((p) => p.type === 'quota.threshold')).toBe(true);
      // A tampered body or another secret does not verify.
      const first = receiver.received[0]!;
      expect(() => verifier.verify(first.body.replace('1000', '1001'), first.headers)).toThrow();
      expect(() => new Webhook(`whsec_${randomBytes(24).toString('base64')}`).verify(first.body, first.headers)).toThrow();
      const [listed] = await t.app.services.webhooks.list(account.id);
      expect(listed).toMatchObject({ id: endpoint.id, url: receiver.url, failed: 0, pending: 0 });
      expect(listed!.deliveries.map((d) => [d.type, d.status, d.attempts, d.lastStatus])).toEqual([
        ['quota.threshold', 'delivered', 1, 204],
        ['quota.threshold', 'delivered', 1, 204],
      ]);
    });

    it('two app instances charging one account concurrently write each threshold once', async () => {
      const [a, b] = [await app(), await app()];
      const { key, account } = await a.createAccountKey('free');
      await a.app.services.webhooks.add({ accountId: account.id, url: receiver.url });
      const calls = Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? a : b).call('POST', '/v1/batch', { key, body: batch(50) }));
      expect((await Promise.all(calls)).every((answer) => answer.status === 200)).toBe(true);
      expect(await a.store.monthlyUsage(account.id, currentMonth(new Date()))).toBe(1000);
      expect(await eventTypes(a, account.id)).toEqual(['quota.threshold', 'quota.threshold']);
      // Both instances dispatch: still one delivery of each.
      running(a.store);
      running(b.store);
      await eventually(() => receiver.received.length >= 2);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.received).toHaveLength(2);
      expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(2);
    });

    it('the receiver down for a while, then up: delivered after it comes back, with the failed attempts listed', async () => {
      const t = await app();
      const { key, account } = await t.createAccountKey('free');
      const { secret } = await t.app.services.webhooks.add({ accountId: account.id, url: receiver.url });
      await receiver.stop();
      expect((await t.call('POST', '/v1/batch', { key, body: batch(850) })).status).toBe(200);
      running(t.store, { circuit: NO_CIRCUIT });
      await eventually(async () => ((await t.app.services.webhooks.list(account.id))[0]!.deliveries[0]?.attempts ?? 0) >= 3);
      const [waiting] = await t.app.services.webhooks.list(account.id);
      expect(waiting).toMatchObject({ pending: 1, failed: 0 });
      expect(waiting!.deliveries[0]).toMatchObject({
        status: 'pending',
        lastStatus: null,
        lastError: expect.stringMatching(/ECONNREFUSED|connect/),
      });
      await receiver.start();
      await eventually(() => receiver.received.length === 1);
      expect(
        (new Webhook(secret).verify(receiver.received[0]!.body, receiver.received[0]!.headers) as { data: { threshold: number } }).data
          .threshold,
      ).toBe(80);
      await eventually(async () => (await t.app.services.webhooks.list(account.id))[0]!.deliveries[0]!.status === 'delivered');
      const [after] = await t.app.services.webhooks.list(account.id);
      // Three attempts were counted before the receiver came back; the third may have been in flight
      // then and be the one that delivered it (an attempt is counted when it starts).
      expect(after!.deliveries[0]!.attempts).toBeGreaterThanOrEqual(3);
      expect(after!.deliveries[0]!.lastError).toBeNull();
    });

    it('a delivery that keeps failing past its day is marked failed and counted', async () => {
      const t = await app();
      const { key, account } = await t.createAccountKey('free');
      await t.app.services.webhooks.add({ accountId: account.id, url: receiver.url });
      await receiver.stop();
      expect((await t.call('POST', '/v1/batch', { key, body: batch(800) })).status).toBe(200);
      running(t.store, { schedule: { baseDelayMs: 20, maxDelayMs: 40, giveUpAfterMs: 300 } });
      await eventually(async () => (await t.app.services.webhooks.list(account.id))[0]!.failed === 1);
      const [listed] = await t.app.services.webhooks.list(account.id);
      expect(listed).toMatchObject({ failed: 1, pending: 0 });
      expect(listed!.deliveries[0]).toMatchObject({ status: 'failed', nextAttemptAt: null });
    });

    it('a restart loses nothing: events written while no dispatcher ran, and a claim whose process died, are delivered by a new app on the same database', async () => {
      const first = await createTestApp(db.env);
      const { key, account } = await first.createAccountKey('free');
      await first.app.services.webhooks.add({ accountId: account.id, url: receiver.url });
      expect((await first.call('POST', '/v1/batch', { key, body: batch(1000) })).status).toBe(200);
      // A dispatcher claims one delivery and dies before posting it (its lease is still running).
      const outbox = first.store.webhooks;
      const at = new Date().toISOString();
      const claimed = await outbox.claim(
        await outbox.dueDeliveries(at, { perEndpoint: 1, limit: 1, skipEndpoints: [] }),
        at,
        new Date(Date.now() + 60_000).toISOString(),
      );
      expect(claimed).toHaveLength(1);
      await first.close();
      const second = await app();
      const now = running(second.store);
      await eventually(() => receiver.received.length === 1);
      // Recorded as delivered (else its own lease, ended for the clock below, would send it again: at least once).
      await eventually(async () =>
        (await second.app.services.webhooks.list(account.id))[0]!.deliveries.some((d) => d.status === 'delivered'),
      );
      await now.stop();
      expect(receiver.received).toHaveLength(1);
      // The claimed one waits for its lease to end: a clock past it sends it too.
      const later = () => new Date(Date.now() + 61_000);
      running(second.store, { clock: later });
      await eventually(() => receiver.received.length === 2);
      const thresholds = receiver.received.map((r) => (JSON.parse(r.body) as { data: { threshold: number } }).data.threshold).sort();
      expect(thresholds).toEqual([100, 80]);
    });

    it('removing an endpoint drops its pending deliveries; another account cannot remove it', async () => {
      const t = await app();
      const { key, account } = await t.createAccountKey('free');
      const other = await t.createAccountKey('free');
      const { endpoint } = await t.app.services.webhooks.add({ accountId: account.id, url: receiver.url });
      await expect(t.app.services.webhooks.remove(other.account.id, endpoint.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect((await t.call('POST', '/v1/batch', { key, body: batch(800) })).status).toBe(200);
      await t.app.services.webhooks.remove(account.id, endpoint.id);
      expect(await t.app.services.webhooks.list(account.id)).toEqual([]);
      await dispatcherFor(t.store).round();
      expect(receiver.received).toHaveLength(0);
    });

    it('the secret is sealed at rest and in no log line, whatever happens to the deliveries', async () => {
      const lines: string[] = [];
      const logger = pino({ level: 'trace' }, { write: (line: string) => lines.push(line) });
      const t = await createTestApp(db.env, { logger });
      closing.push(() => t.close());
      const { key, account } = await t.createAccountKey('free');
      const { secret, endpoint } = await t.app.services.webhooks.add({ accountId: account.id, url: receiver.url });
      await receiver.stop();
      expect((await t.call('POST', '/v1/batch', { key, body: batch(1000) })).status).toBe(200);
      running(t.store, { log: logger, circuit: NO_CIRCUIT });
      await eventually(async () => ((await t.app.services.webhooks.list(account.id))[0]!.deliveries[0]?.attempts ?? 0) >= 2);
      await receiver.start();
      await eventually(() => receiver.received.length === 2);
      expect(lines.some((line) => line.includes('webhook delivery failed'))).toBe(true);
      const raw = secret.slice('whsec_'.length);
      expect(lines.filter((line) => line.includes(raw) || line.includes(secret))).toEqual([]);
      // What the database holds is sealed (AES-256-GCM), and the listing never shows it.
      expect(JSON.stringify(await t.app.services.webhooks.list(account.id))).not.toContain(raw);
      const stored = await db.storedSecret(endpoint.id);
      expect(stored).toMatch(/^v1:/);
      expect(stored).not.toContain(raw);
      expect(Buffer.from(stored.slice(3), 'base64').includes(Buffer.from(raw, 'base64'))).toBe(false);
      expect(secretBox(KEY).open(stored, endpoint.id)).toBe(secret);
      expect(() => secretBox(KEY).open(stored, 'whe_another')).toThrow();
    });
  });
}
