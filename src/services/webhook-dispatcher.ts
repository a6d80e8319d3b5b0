import {
  circuitAfter,
  circuitState,
  DEFAULT_CIRCUIT_POLICY,
  DEFAULT_SLOT_LIMITS,
  endpointRoom,
  pickDeliveries,
  type Circuit,
  type CircuitPolicy,
  type InFlight,
  type SlotLimits,
} from '../domain/webhook-scheduling';
import { DEFAULT_RETRY_SCHEDULE } from '../domain/webhooks';
import { attemptDelivery, writeDueExpiryEvents, type AttemptDependencies } from './webhook-attempts';
import type { ClaimedDelivery } from './webhook-store';

export type { WebhookPost } from './webhook-attempts';

/**
 * The outbox's dispatcher, one per instance, off every request's path. It keeps a few attempts in
 * flight and starts the next due delivery as soon as a slot is free: at most `perEndpoint` per
 * endpoint, `perAccount` per account and `total` on the instance, accounts taking turns
 * (webhook-scheduling.ts), so a slow or dead endpoint holds only its own slots and its timeouts
 * delay nobody else. An endpoint that keeps failing opens its circuit: its deliveries wait in the
 * outbox for the cool-down (postponed, never dropped), then one probe tries it. A failed attempt is
 * retried with exponential backoff and jitter until the event is a day old, then marked failed.
 * Expiry events are written by a scan at most every `scanEveryMs`. Every step is a row: a restart
 * loses nothing, and a claim whose instance dies is due again when its lease ends.
 */
export interface WebhookDispatcher {
  /** Starts dispatching: due deliveries are looked for every `pollMs` and whenever an attempt ends. */
  start(): void;
  /** Stops starting attempts and waits for those in flight. */
  stop(): Promise<void>;
  /** One pass now: the expiry scan if due, then every due delivery the slots and circuits allow; waits for those attempts and says how many. */
  round(): Promise<number>;
}

export interface WebhookDispatcherOptions extends AttemptDependencies {
  /** Pause between looks for due deliveries while no attempt ends (default 1 s). */
  pollMs?: number;
  /** Pause between expiry scans (default 1 min). */
  scanEveryMs?: number;
  /** Attempts in flight at most, per endpoint, per account and on this instance. */
  limits?: SlotLimits;
  /** When an endpoint's circuit opens and how long it stays open. */
  circuit?: CircuitPolicy;
  /** How long a claim holds a delivery (default 1 min, well over the 5 s an attempt may take). */
  leaseMs?: number;
}

export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const { store, clock, log, pollMs = 1000, scanEveryMs = 60_000, limits = DEFAULT_SLOT_LIMITS, leaseMs = 60_000 } = options;
  const slots = inFlightSlots();
  const circuits = endpointCircuits(options, slots);
  const attempts = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = true;
  let scannedAt = -Infinity;
  let lastAccount: string | undefined;
  let passes: Promise<unknown> = Promise.resolve();
  let passQueued = false;

  /** Starts what may start now; the attempts' promises. */
  const pass = async (): Promise<Promise<void>[]> => {
    const now = clock();
    if (now.getTime() - scannedAt >= scanEveryMs) {
      scannedAt = now.getTime();
      await writeDueExpiryEvents(store, now);
    }
    if (slots.view.total >= limits.total) return [];
    const at = now.getTime();
    const skipEndpoints = [...new Set([...slots.view.endpoints.keys(), ...circuits.all.keys()])].filter(
      (id) => endpointRoom(id, slots.view, circuits.all, limits, at) === 0,
    );
    const due = await store.dueDeliveries(now.toISOString(), { perEndpoint: limits.perEndpoint, limit: limits.total * 4, skipEndpoints });
    const picks = pickDeliveries(due, slots.view, circuits.all, limits, at, lastAccount);
    lastAccount = picks.lastAccount;
    const claimed = await store.claim(picks.picked, now.toISOString(), new Date(at + leaseMs).toISOString());
    return claimed.map(begin);
  };
  const begin = (delivery: ClaimedDelivery): Promise<void> => {
    slots.add(delivery);
    // The slot is free before the circuit is settled, so postponing the endpoint includes this delivery.
    const running = attemptDelivery(options, delivery)
      .finally(() => slots.remove(delivery))
      .then((delivered) => circuits.settle(delivery.endpointId, delivered))
      .catch((error: unknown) =>
        log.warn(
          { err: error, endpointId: delivery.endpointId },
          'webhook attempt or its circuit failed to be recorded; a lease brings the delivery back',
        ),
      )
      .finally(() => {
        attempts.delete(running);
        if (!stopped) queuePass();
      });
    attempts.add(running);
    return running;
  };
  const queuePass = () => {
    if (passQueued) return;
    passQueued = true;
    passes = passes.then(async () => {
      passQueued = false;
      if (!stopped) await pass().catch((error: unknown) => log.warn({ err: error }, 'webhook dispatch pass failed; trying again'));
    });
  };
  return {
    start() {
      if (!stopped) return;
      stopped = false;
      timer = setInterval(queuePass, pollMs);
      queuePass();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await passes;
      await Promise.allSettled([...attempts]);
    },
    async round() {
      const run = passes.then(pass);
      // A failed pass fails this round only: the passes after it still run.
      passes = run.catch(() => undefined);
      const started = await run;
      await Promise.all(started);
      return started.length;
    },
  };
}

/**
 * The circuits of the endpoints that failed lately, kept by this instance; when one opens, its
 * endpoint's deliveries are postponed in the outbox, so every instance leaves them alone until then.
 */
function endpointCircuits(options: WebhookDispatcherOptions, slots: ReturnType<typeof inFlightSlots>) {
  const { store, clock, log, circuit: policy = DEFAULT_CIRCUIT_POLICY, schedule = DEFAULT_RETRY_SCHEDULE } = options;
  const all = new Map<string, Circuit>();
  const postpone = async (endpointId: string, circuit: Circuit) => {
    const until = new Date(circuit.openUntil!);
    const giveUpBefore = new Date(until.getTime() - schedule.giveUpAfterMs).toISOString();
    const error = `the endpoint failed ${circuit.failures} attempts in a row; its deliveries wait until ${until.toISOString()}`;
    const result = await store.postponeEndpoint(endpointId, until.toISOString(), {
      giveUpBefore,
      inFlight: slots.eventsOf(endpointId),
      error,
    });
    log.warn(
      { endpointId, failures: circuit.failures, until: until.toISOString(), ...result },
      'webhook endpoint keeps failing: its circuit is open',
    );
  };
  return {
    all: all as ReadonlyMap<string, Circuit>,
    /** Records an attempt's outcome on its endpoint's circuit. */
    async settle(endpointId: string, delivered: boolean) {
      const at = clock().getTime();
      const after = circuitAfter(all.get(endpointId), delivered, at, policy);
      if (after) all.set(endpointId, after);
      else all.delete(endpointId);
      // Every failure while open postpones again: an attempt that was in flight when the circuit opened has just set its own retry time.
      if (!delivered && circuitState(after, at) === 'open') await postpone(endpointId, after!);
    },
  };
}

/** The attempts this instance has in flight, by endpoint and account. */
function inFlightSlots() {
  const endpoints = new Map<string, number>();
  const accounts = new Map<string, number>();
  const events = new Map<string, Set<string>>();
  const view: InFlight & { total: number } = { endpoints, accounts, total: 0 };
  const bump = (map: Map<string, number>, id: string, by: number) => {
    const n = (map.get(id) ?? 0) + by;
    if (n > 0) map.set(id, n);
    else map.delete(id);
  };
  return {
    view,
    add(delivery: ClaimedDelivery) {
      bump(endpoints, delivery.endpointId, 1);
      bump(accounts, delivery.accountId, 1);
      view.total += 1;
      const set = events.get(delivery.endpointId) ?? new Set();
      events.set(delivery.endpointId, set.add(delivery.eventId));
    },
    remove(delivery: ClaimedDelivery) {
      bump(endpoints, delivery.endpointId, -1);
      bump(accounts, delivery.accountId, -1);
      view.total -= 1;
      const set = events.get(delivery.endpointId);
      set?.delete(delivery.eventId);
      if (set?.size === 0) events.delete(delivery.endpointId);
    },
    eventsOf: (endpointId: string) => [...(events.get(endpointId) ?? [])],
  };
}
