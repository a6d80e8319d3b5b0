import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resolveHost } from '../../src/data/guarded-connection';
import { postWebhook } from '../../src/data/webhook-http';
import { secretBox } from '../../src/domain/secret-box';
import { NO_EGRESS_PROXY } from '../../src/domain/egress-proxy';
import { webhookUrlPolicy, type WebhookUrlPolicy } from '../../src/domain/webhook-urls';
import type { AccountStore } from '../../src/services/account-store';
import { createWebhookDispatcher } from '../../src/services/webhook-dispatcher';
import { createWebhooks } from '../../src/services/webhooks';
import { BACKENDS, type BackendInstance } from '../data/backends';
import { webhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

/**
 * Where webhooks may go (production: https only, public addresses only, checked when added and again
 * on the address each delivery connects to), and the expiry events of keys, on each database.
 */
const KEY = randomBytes(32);
const silent = { warn: () => undefined, debug: () => undefined };

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(backend.title('webhook URL rules and key expiry events'), () => {
    let instance: BackendInstance;
    let store: AccountStore;
    let receiver: WebhookReceiver;
    let now = new Date('2026-12-01T12:00:00.000Z');
    const clock = () => now;
    beforeAll(async () => {
      instance = await backend.create();
      receiver = await webhookReceiver();
    });
    beforeEach(async () => {
      await store?.close();
      await instance.reset();
      store = instance.open({ now: clock });
      receiver.received.length = 0;
    });
    afterAll(async () => {
      await store?.close();
      await receiver?.stop();
      await instance?.destroy();
    });
    const webhooks = (policy: WebhookUrlPolicy, resolve = resolveHost) =>
      createWebhooks({ store: store.webhooks, secrets: () => secretBox(KEY), resolveHost: resolve, policy, clock });
    const dispatcher = (policy: WebhookUrlPolicy) =>
      createWebhookDispatcher({
        store: store.webhooks,
        secrets: () => secretBox(KEY),
        post: (u, h, b) => postWebhook(u, h, b, { policy, egress: NO_EGRESS_PROXY, timeoutMs: 5_000 }),
        clock,
        log: silent,
      });

    it('production refuses http://, and hosts that are or resolve to loopback, private or link-local addresses (localhost included)', async () => {
      const account = await store.createAccount({ plan: 'free' });
      const production = webhooks(webhookUrlPolicy('production'));
      const refusals: [string, RegExp][] = [
        ['http://hooks.example.com/x', /must use https/],
        [
          'https://localhost/x',
          /^The webhook URL "https:\/\/localhost\/x" has a host \(localhost\) that resolves to a non-public address: /,
        ],
        ['https://127.0.0.1/x', /\(127\.0\.0\.1\) that is not a public address/],
        ['https://[::1]/x', /\(\[::1\]\) that is not a public address/],
        ['https://10.0.0.8/x', /\(10\.0\.0\.8\) that is not a public address/],
        ['https://169.254.169.254/latest/meta-data', /169\.254\.169\.254/],
        ['https://[::ffff:127.0.0.1]/x', /that is not a public address/],
        ['https://[::ffff:0:7f00:1]/x', /that is not a public address/],
        ['https://[2002:7f00:1::1]/x', /that is not a public address/],
        ['https://0.0.0.0/x', /0\.0\.0\.0/],
      ];
      for (const [url, message] of refusals) {
        await expect(production.add({ accountId: account.id, url }), url).rejects.toMatchObject({
          code: 'INVALID_REQUEST',
          param: 'url',
          message: expect.stringMatching(message),
        });
      }
      expect(await production.list(account.id)).toEqual([]);
      // A name is refused without naming the addresses it resolves to: they describe the servers' own network.
      const internal = webhooks(webhookUrlPolicy('production'), async () => ['93.184.216.34', '10.20.30.40']);
      const refusal = await internal.add({ accountId: account.id, url: 'https://hooks.example.com/x' }).catch((error: Error) => error);
      expect(refusal).toMatchObject({
        code: 'INVALID_REQUEST',
        param: 'url',
        message: expect.stringContaining('(hooks.example.com) that resolves to a non-public address'),
      });
      expect((refusal as Error).message).not.toMatch(/10\.20|93\.184/);
      // Development takes a local receiver.
      const { endpoint } = await webhooks(webhookUrlPolicy('development')).add({ accountId: account.id, url: receiver.url });
      expect(endpoint.url).toBe(receiver.url);
    });

    it('a name that resolved to a public address when added and to 127.0.0.1 now is refused at delivery (DNS rebinding)', async () => {
      const policy = { httpsOnly: false, publicAddressesOnly: true };
      const account = await store.createAccount({ plan: 'free' });
      const key = await store.createKey(account.id, 'test');
      // At add time the name "resolved" to a public address.
      await webhooks(policy, async () => ['93.184.216.34']).add({
        accountId: account.id,
        url: receiver.url.replace('127.0.0.1', 'localhost'),
      });
      await store.consumeQuotaUpTo(account.id, '2026-12', 1000, 850, undefined, undefined, '2026-12-01');
      await dispatcher(policy).round();
      expect(receiver.received).toHaveLength(0);
      const [listed] = await webhooks(policy).list(account.id);
      expect(listed!.deliveries[0]).toMatchObject({
        status: 'pending',
        lastStatus: null,
        lastError: 'refused: localhost resolves to a non-public address',
      });
      // The same delivery in development reaches the receiver.
      await store.webhooks.finishAttempt(
        { eventId: listed!.deliveries[0]!.eventId, endpointId: listed!.id, attempt: 1 },
        { kind: 'retry', status: null, error: 'x', nextAttemptAt: now.toISOString() },
        now.toISOString(),
      );
      await dispatcher(webhookUrlPolicy('development')).round();
      expect(receiver.received).toHaveLength(1);
      expect(key.record.id).toMatch(/^key_/);
    });

    it('key.expiring 7 days and 1 day before a key ends, key.expired after: each once, per key and end; revoked keys none', async () => {
      const account = await store.createAccount({ plan: 'free' });
      await webhooks(webhookUrlPolicy('development')).add({ accountId: account.id, url: receiver.url });
      const ending = await store.createKey(account.id, 'test', '2026-12-05T12:00:00.000Z');
      const revoked = await store.createKey(account.id, 'test', '2026-12-05T12:00:00.000Z');
      await store.revokeKey(revoked.record.id);
      await store.createKey(account.id, 'test', '2027-06-01T00:00:00.000Z');
      const types = () =>
        receiver.received.map((r) => JSON.parse(r.body) as { type: string; data: { keyId: string; daysBefore?: number } });
      const d = dispatcher(webhookUrlPolicy('development'));
      for (const at of [
        '2026-12-01T12:00:00.000Z',
        '2026-12-01T12:00:10.000Z',
        '2026-12-04T13:00:00.000Z',
        '2026-12-05T12:00:01.000Z',
        '2026-12-06T12:00:00.000Z',
      ]) {
        now = new Date(at);
        // Two rounds a minute apart at each moment (the scan runs at most once a minute per dispatcher).
        await d.round();
        now = new Date(now.getTime() + 60_000);
        await d.round();
      }
      expect(types().map((event) => [event.type, event.data.keyId, event.data.daysBefore])).toEqual([
        ['key.expiring', ending.record.id, 7],
        ['key.expiring', ending.record.id, 1],
        ['key.expired', ending.record.id, undefined],
      ]);
      // Another instance scanning the same moments writes nothing new.
      await dispatcher(webhookUrlPolicy('development')).round();
      expect(receiver.received).toHaveLength(3);
      now = new Date('2026-12-01T12:00:00.000Z');
    });
  });
}
