import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { secretBox } from '../../src/domain/secret-box';
import { webhookUrlPolicy } from '../../src/domain/webhook-urls';
import type { AccountStore } from '../../src/services/account-store';
import { createWebhookDispatcher, type WebhookDispatcher, type WebhookPost } from '../../src/services/webhook-dispatcher';
import type { WebhookStore } from '../../src/services/webhook-store';
import { createWebhooks } from '../../src/services/webhooks';
import { BACKENDS, type BackendInstance } from '../data/backends';
import { eventually } from '../helpers/webhook-receiver';

/**
 * The dispatcher wakes instead of polling, on each database: with the sweep an hour long, a
 * delivery is sent because its event was written (in this process, or on PostgreSQL by another
 * instance through LISTEN/NOTIFY, also after the listening connection was killed) or because its
 * retry came due; with nothing to do it queries the store not at all. Real clock, a recording post.
 */
const KEY = randomBytes(32);
const silent = { warn: () => undefined, debug: () => undefined };
const URL = 'http://receiver.test/hooks';
const HOUR = 3_600_000;
/** Long enough for a poll of the old kind (every second) to have queried several times. */
const IDLE_WINDOW_MS = 1_500;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The store's webhook queries, each call counted by name. */
function counted(store: WebhookStore): { store: WebhookStore; calls: Map<string, number>; total(): number } {
  const calls = new Map<string, number>();
  const wrapped = Object.fromEntries(
    Object.entries(store).map(([name, query]) => [
      name,
      (...args: unknown[]) => {
        calls.set(name, (calls.get(name) ?? 0) + 1);
        return (query as (...a: unknown[]) => unknown)(...args);
      },
    ]),
  ) as unknown as WebhookStore;
  return {
    store: wrapped,
    calls,
    total: () => [...calls.entries()].filter(([name]) => name !== 'watchOutbox').reduce((n, [, c]) => n + c, 0),
  };
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(backend.title('webhook dispatcher woken, not polling'), () => {
    let instance: BackendInstance;
    let store: AccountStore;
    let posted: string[];
    let answers: (number | null)[];
    const running: WebhookDispatcher[] = [];
    const opened: AccountStore[] = [];
    const post: WebhookPost = async (_url, _headers, body) => {
      posted.push(body);
      const status = answers.shift() ?? 204;
      if (status === null) return { status: null, error: 'refused' };
      return status < 300 ? { status } : { status, error: `answered ${status}` };
    };
    beforeAll(async () => {
      instance = await backend.create();
    });
    beforeEach(async () => {
      await instance.reset();
      store = instance.open();
      opened.push(store);
      posted = [];
      answers = [];
    });
    afterEach(async () => {
      for (const dispatcher of running.splice(0)) await dispatcher.stop();
      for (const s of opened.splice(0)) await s.close();
    });
    afterAll(async () => {
      await instance?.destroy();
    });
    const endpointFor = async (on: AccountStore) => {
      const account = await on.createAccount({ plan: 'free' });
      const webhooks = createWebhooks({
        store: on.webhooks,
        secrets: () => secretBox(KEY),
        resolveHost: async (h) => [h],
        policy: webhookUrlPolicy('development'),
        clock: () => new Date(),
      });
      await webhooks.add({ accountId: account.id, url: URL });
      return account.id;
    };
    const start = (on: WebhookStore, schedule = { baseDelayMs: 1_000, maxDelayMs: 1_000, giveUpAfterMs: HOUR }) => {
      const dispatcher = createWebhookDispatcher({
        store: on,
        secrets: () => secretBox(KEY),
        post,
        clock: () => new Date(),
        log: silent,
        schedule,
        sweepMs: HOUR,
      });
      dispatcher.start();
      running.push(dispatcher);
      return dispatcher;
    };
    const event = (on: AccountStore, accountId: string, tag: string) =>
      on.webhooks.recordEvent({ identity: `wake:${tag}`, accountId, type: 'key.expiring', data: { tag } }, new Date().toISOString());
    /** Waits until the dispatcher has made no store call for a while (its start or wake-up is over). */
    const settled = async (count: () => number) => {
      let before = -1;
      while (before !== count()) {
        before = count();
        await sleep(150);
      }
    };

    it('idle, it queries the store not at all; an event written in this process wakes it at once', async () => {
      const accountId = await endpointFor(store);
      const outbox = counted(store.webhooks);
      start(outbox.store);
      await settled(outbox.total);
      const idle = outbox.total();
      await sleep(IDLE_WINDOW_MS);
      expect(outbox.total()).toBe(idle);
      await event(store, accountId, 'local');
      await eventually(() => posted.length === 1, 10_000);
      await settled(outbox.total);
      const after = outbox.total();
      await sleep(IDLE_WINDOW_MS);
      expect(outbox.total()).toBe(after);
      expect(posted).toHaveLength(1);
    });

    it('a retry due later is attempted at its due time, by a timer, not by looking again and again', async () => {
      const accountId = await endpointFor(store);
      const outbox = counted(store.webhooks);
      answers = [500];
      start(outbox.store, { baseDelayMs: 600, maxDelayMs: 600, giveUpAfterMs: HOUR });
      await settled(outbox.total);
      await event(store, accountId, 'retry');
      await eventually(() => posted.length === 1, 10_000);
      const firstAt = Date.now();
      await eventually(() => posted.length === 1 && outbox.calls.get('finishAttempt') === 1, 10_000);
      const looksBefore = outbox.calls.get('dueDeliveries')!;
      // Nothing polls (the sweep is an hour): the retry is sent because its due time was planned.
      await eventually(() => posted.length === 2, 10_000);
      // The backoff's jitter: between half and all of the 600 ms step.
      expect(Date.now() - firstAt).toBeGreaterThanOrEqual(250);
      // Between the attempts: the look after the first one ended, the one at the due time, and on
      // PostgreSQL the notifications of the attempts' own writes, which a loaded machine may deliver
      // after a look instead of before it. A poll would be dozens; a look per notification is not.
      expect(outbox.calls.get('dueDeliveries')! - looksBefore).toBeLessThanOrEqual(5);
      await settled(outbox.total);
      expect(
        (await store.webhooks.recentDeliveries(await endpoints(store, accountId), 1)).values().next().value?.deliveries[0],
      ).toMatchObject({
        status: 'delivered',
        attempts: 2,
      });
    });

    // Another instance's event reaches this one only through PostgreSQL's LISTEN/NOTIFY: on SQLite
    // there is no such test to run, so none is registered.
    if (backend.name === 'postgres')
      it('an event written by another instance wakes this one through LISTEN/NOTIFY, also after its listening connection was killed', async () => {
        const other = instance.open();
        opened.push(other);
        const accountId = await endpointFor(other);
        const outbox = counted(store.webhooks);
        start(outbox.store);
        const listener = () =>
          instance.query<{ pid: number }>(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN webhook_outbox' AND state = 'idle'",
          );
        await eventually(async () => (await listener()).length === 1, 10_000);
        await settled(outbox.total);
        await event(other, accountId, 'remote-1');
        await eventually(() => posted.length === 1, 10_000);

        const [killed] = await listener();
        await instance.query('SELECT pg_terminate_backend(?)', [killed!.pid]);
        await eventually(async () => (await listener()).some((row) => row.pid !== killed!.pid), 10_000);
        // The reconnection's own look is over before the next event is written: only the notification can send it.
        await settled(outbox.total);
        await event(other, accountId, 'remote-2');
        await eventually(() => posted.length === 2, 10_000);
        expect(posted.map((body) => (JSON.parse(body) as { data: { tag: string } }).data.tag)).toEqual(['remote-1', 'remote-2']);
      });
  });
}

async function endpoints(store: AccountStore, accountId: string): Promise<string[]> {
  return (await store.webhooks.listEndpoints(accountId)).map((e) => e.id);
}
