import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { postWebhook } from '../../src/data/webhook-http';
import { secretBox } from '../../src/domain/secret-box';
import { DEFAULT_SLOT_LIMITS } from '../../src/domain/webhook-scheduling';
import { NO_EGRESS_PROXY } from '../../src/domain/egress-proxy';
import { webhookUrlPolicy } from '../../src/domain/webhook-urls';
import type { AccountStore } from '../../src/services/account-store';
import { createWebhookDispatcher } from '../../src/services/webhook-dispatcher';
import { createWebhooks } from '../../src/services/webhooks';
import { BACKENDS, type BackendInstance } from '../data/backends';
import { blackHole, eventually, webhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

/**
 * One account's dead endpoints delay nobody else: ten endpoints that accept a connection and never
 * answer, with 2,000 deliveries queued and retrying (each timed out before, all due), and another
 * account's event still arrives within seconds. A dispatcher that waits for each batch of 20 attempts (5 s timeout each) would reach it
 * after the 2,000 older ones: 100 batches, over 8 minutes.
 */
const KEY = randomBytes(32);
const silent = { warn: () => undefined, debug: () => undefined };
const DEAD_ENDPOINTS = 10;
const EVENTS = 200;
/** The bound on the other account's delivery, with room for a slow shared machine (the naive wait is minutes). */
const FAIR_BOUND_MS = 5_000;

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(backend.title('fair webhooks: dead endpoints of one account'), () => {
    let instance: BackendInstance;
    let store: AccountStore;
    let receiver: WebhookReceiver;
    const closing: (() => Promise<unknown>)[] = [];
    beforeAll(async () => {
      instance = await backend.create();
      await instance.reset();
      store = instance.open();
      receiver = await webhookReceiver();
    });
    afterEach(async () => {
      for (const close of closing.splice(0)) await close();
    });
    afterAll(async () => {
      await store?.close();
      await receiver?.stop();
      await instance?.destroy();
    });

    it("another account's event arrives within seconds while ten dead endpoints have 2,000 deliveries queued and retrying", {
      timeout: 90_000,
    }, async () => {
      const webhooks = createWebhooks({
        store: store.webhooks,
        secrets: () => secretBox(KEY),
        resolveHost: async (h) => [h],
        policy: webhookUrlPolicy('development'),
        clock: () => new Date(),
      });
      const hole = await blackHole();
      const noisy = await store.createAccount({ plan: 'free' });
      for (let n = 0; n < DEAD_ENDPOINTS; n++) await webhooks.add({ accountId: noisy.id, url: hole.url(n) });
      const at = new Date().toISOString();
      for (let i = 0; i < EVENTS; i++) {
        await store.webhooks.recordEvent(
          {
            identity: `flood:${i}`,
            accountId: noisy.id,
            type: 'key.expiring',
            data: { accountId: noisy.id, keyId: `key_${i}`, daysBefore: 1 },
          },
          at,
        );
      }
      // Every delivery has been tried and timed out three times already, and is due again now.
      await instance.query("UPDATE webhook_deliveries SET attempts = 3, last_attempt_at = ?, last_error = 'no answer (before this test)'", [
        at,
      ]);
      const dispatcher = createWebhookDispatcher({
        store: store.webhooks,
        secrets: () => secretBox(KEY),
        post: (url, headers, body) =>
          postWebhook(url, headers, body, { policy: webhookUrlPolicy('development'), egress: NO_EGRESS_PROXY, timeoutMs: 5_000 }),
        clock: () => new Date(),
        log: silent,
      });
      dispatcher.start();
      closing.push(async () => {
        await hole.close();
        await dispatcher.stop();
      });
      // Some of this dispatcher's own attempts have timed out and are retrying; others hang in flight.
      const listing = () => webhooks.list(noisy.id);
      const count = async (where: string, params: unknown[] = []) =>
        Number(
          (
            await instance.query<{ n: number | string }>(
              `SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending' AND ${where}`,
              params,
            )
          )[0]!.n,
        );
      const retrying = () => count('last_error IS NOT NULL');
      const retriedHere = () => count('last_error LIKE ?', ['no answer within 5 s%']);
      await eventually(async () => (await retriedHere()) >= 1, 30_000);
      await eventually(() => hole.open() >= DEFAULT_SLOT_LIMITS.perAccount);

      const quiet = await store.createAccount({ plan: 'free' });
      const { secret } = await webhooks.add({ accountId: quiet.id, url: receiver.url });
      const started = performance.now();
      await store.webhooks.recordEvent(
        {
          identity: `quota.threshold:${quiet.id}:2026-12:80`,
          accountId: quiet.id,
          type: 'quota.threshold',
          data: { accountId: quiet.id, threshold: 80 },
        },
        new Date().toISOString(),
      );
      await eventually(() => receiver.received.length === 1, 60_000);
      const waitedMs = performance.now() - started;
      console.info(
        `fair webhooks (${backend.name}): the other account's event arrived after ${Math.round(waitedMs)} ms, ${hole.open()} requests to dead endpoints open, ${await retrying()} deliveries retrying`,
      );
      expect(waitedMs).toBeLessThan(FAIR_BOUND_MS);
      expect((new Webhook(secret).verify(receiver.received[0]!.body, receiver.received[0]!.headers) as { type: string }).type).toBe(
        'quota.threshold',
      );

      // The dead endpoints held their own slots only, and lost nothing: every delivery still pending.
      expect(hole.most.perPath).toBeLessThanOrEqual(DEFAULT_SLOT_LIMITS.perEndpoint);
      expect(hole.most.total).toBeLessThanOrEqual(DEFAULT_SLOT_LIMITS.perAccount);
      expect(await retrying()).toBe(DEAD_ENDPOINTS * EVENTS);
      const counts = (await listing()).reduce((sum, e) => ({ pending: sum.pending + e.pending, failed: sum.failed + e.failed }), {
        pending: 0,
        failed: 0,
      });
      expect(counts).toEqual({ pending: DEAD_ENDPOINTS * EVENTS, failed: 0 });
    });
  });
}
