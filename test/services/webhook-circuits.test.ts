import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { secretBox } from '../../src/domain/secret-box';
import { webhookUrlPolicy } from '../../src/domain/webhook-urls';
import type { AccountStore } from '../../src/services/account-store';
import { createWebhookDispatcher, type WebhookPost } from '../../src/services/webhook-dispatcher';
import { createWebhooks } from '../../src/services/webhooks';
import { BACKENDS, type BackendInstance } from '../data/backends';

/**
 * The dispatcher's slots and circuits on each database, with a fixed clock and a recording post in
 * place of the network: what is attempted in each round, and what the outbox holds after.
 */
const KEY = randomBytes(32);
const silent = { warn: () => undefined, debug: () => undefined };
const DEAD = 'http://dead.test/hooks';
const LIVE = 'http://live.test/hooks';

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(backend.title('webhook circuits and slots'), () => {
    let instance: BackendInstance;
    let store: AccountStore;
    let now = new Date('2026-12-01T12:00:00.000Z');
    const clock = () => now;
    const later = (ms: number) => (now = new Date(now.getTime() + ms));
    let posted: string[] = [];
    let deadAnswers = true;
    const post: WebhookPost = async (url) => {
      posted.push(url);
      return url === DEAD && deadAnswers ? { status: null, error: 'no answer within 5 s' } : { status: 204 };
    };
    beforeAll(async () => {
      instance = await backend.create();
    });
    beforeEach(async () => {
      await store?.close();
      await instance.reset();
      store = instance.open({ now: clock });
      posted = [];
      deadAnswers = true;
      now = new Date('2026-12-01T12:00:00.000Z');
    });
    afterAll(async () => {
      await store?.close();
      await instance?.destroy();
    });
    const endpoint = async (accountId: string, url: string) => {
      const webhooks = createWebhooks({
        store: store.webhooks,
        secrets: () => secretBox(KEY),
        resolveHost: async (h) => [h],
        policy: webhookUrlPolicy('development'),
        clock,
      });
      return (await webhooks.add({ accountId, url })).endpoint.id;
    };
    const events = async (accountId: string, n: number, tag: string) => {
      for (let i = 0; i < n; i++)
        await store.webhooks.recordEvent({ identity: `${tag}:${i}`, accountId, type: 'key.expiring', data: { i } }, now.toISOString());
    };
    const counts = async () =>
      Object.fromEntries(
        (
          await instance.query<{ status: string; n: number | string }>(
            'SELECT status, count(*) AS n FROM webhook_deliveries GROUP BY status',
          )
        ).map((r) => [r.status, Number(r.n)]),
      );
    const dispatcher = () =>
      createWebhookDispatcher({
        store: store.webhooks,
        secrets: () => secretBox(KEY),
        post,
        clock,
        log: silent,
        schedule: { baseDelayMs: 1_000, maxDelayMs: 2_000, giveUpAfterMs: 86_400_000 },
        circuit: { failuresToOpen: 3, cooldownMs: 30_000, maxCooldownMs: 120_000 },
      });

    it("each round attempts at most 2 per endpoint, and another account's delivery goes in the first round", async () => {
      const noisy = await store.createAccount({ plan: 'free' });
      const quiet = await store.createAccount({ plan: 'free' });
      await endpoint(noisy.id, DEAD);
      await events(noisy.id, 50, 'noisy');
      await endpoint(quiet.id, LIVE);
      await events(quiet.id, 1, 'quiet');
      expect(await dispatcher().round()).toBe(3);
      expect(posted.sort()).toEqual([DEAD, DEAD, LIVE]);
      expect(await counts()).toEqual({ pending: 50, delivered: 1 });
    });

    it("failures in a row open the circuit: the endpoint's deliveries wait for the cool-down, none dropped; a good probe closes it", async () => {
      const account = await store.createAccount({ plan: 'free' });
      await endpoint(account.id, DEAD);
      await events(account.id, 20, 'flood');
      const d = dispatcher();
      // Rounds 2 s apart (the retries are due by then): 2, 2, then the circuit is open after 3 failures.
      for (let round = 0; round < 2; round++) {
        await d.round();
        later(2_000);
      }
      expect(posted).toHaveLength(4);
      const due = await instance.query<{ next_attempt_at: string }>(
        "SELECT next_attempt_at FROM webhook_deliveries WHERE status = 'pending'",
      );
      expect(due).toHaveLength(20);
      expect(due.every((row) => Date.parse(row.next_attempt_at) >= now.getTime() + 20_000)).toBe(true);
      expect(await d.round()).toBe(0);
      later(30_000);
      // Half-open: one probe, and it fails: open again, for twice as long.
      expect(await d.round()).toBe(1);
      later(31_000);
      expect(await d.round()).toBe(0);
      later(30_000);
      deadAnswers = false;
      expect(await d.round()).toBe(1);
      // Closed again: 2 at a time until all are delivered.
      let rounds = 0;
      while ((await counts()).pending && rounds++ < 20) await d.round();
      expect(await counts()).toEqual({ delivered: 20 });
    });
  });
}
