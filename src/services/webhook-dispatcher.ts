import {
  circuitAfter,
  circuitState,
  DEFAULT_CIRCUIT_POLICY,
  DEFAULT_SLOT_LIMITS,
  endpointRoom,
  nextWakeAt,
  pickDeliveries,
  type Circuit,
  type CircuitPolicy,
  type InFlight,
  type SlotLimits,
} from '../domain/webhook-scheduling';
import { DEFAULT_RETRY_SCHEDULE } from '../domain/webhooks';
import { attemptDelivery, writeDueExpiryEvents, type AttemptDependencies } from './webhook-attempts';
import type { ClaimedDelivery, WebhookStore } from './webhook-store';

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
 * It never polls: a pass runs when an event is written (watchOutbox: this process's writes, and on
 * PostgreSQL every instance's), when an attempt ends, and at the next due time it knows (a retry, a
 * lease's end, a circuit's cool-down, the next expiry scan); `sweepMs` bounds the wait, for a wake-up
 * that was lost. With nothing to do it queries the store once per sweep.
 */
export interface WebhookDispatcher {
  /** Starts dispatching: due deliveries are looked for at once, on every wake-up, and whenever an attempt ends. */
  start(): void;
  /** Stops starting attempts and waits for those in flight. */
  stop(): Promise<void>;
  /** One pass now: the expiry scan if due, then every due delivery the slots and circuits allow; waits for those attempts and says how many. */
  round(): Promise<number>;
}

export interface WebhookDispatcherOptions extends AttemptDependencies {
  /** The longest wait between passes when nothing wakes the dispatcher (default 1 min): the safety net for a lost wake-up. */
  sweepMs?: number;
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
  const { store, clock, log, sweepMs = 60_000, scanEveryMs = 60_000, limits = DEFAULT_SLOT_LIMITS, leaseMs = 60_000 } = options;
  const slots = inFlightSlots();
  const circuits = endpointCircuits(options, slots);
  const attempts = new Set<Promise<void>>();
  const wake = wakeTimer(() => queuePass());
  let unwatch: (() => void) | undefined;
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
    const skipEndpoints = fullEndpoints(slots.view, circuits.all, limits, at);
    const due = await store.dueDeliveries(now.toISOString(), { perEndpoint: limits.perEndpoint, limit: limits.total * 4, skipEndpoints });
    const picks = pickDeliveries(due, slots.view, circuits.all, limits, at, lastAccount);
    lastAccount = picks.lastAccount;
    const claimed = await store.claim(picks.picked, now.toISOString(), new Date(at + leaseMs).toISOString());
    return claimed.map(begin);
  };
  /** The next pass at the earliest time something is due, within a sweep. */
  const plan = async () => {
    const own = { inFlight: slots.view, circuits: circuits.all, limits, attempts: attempts.size };
    const wakeAt = await nextPassAt(store, { ...own, scanAt: scannedAt + scanEveryMs, sweepMs }, clock().getTime());
    if (!stopped) wake.in(wakeAt - clock().getTime());
  };
  const begin = (delivery: ClaimedDelivery) =>
    startAttempt({ options, slots, circuits, attempts }, delivery, () => {
      if (!stopped) queuePass();
    });
  const queuePass = () => {
    if (passQueued) return;
    passQueued = true;
    passes = passes.then(async () => {
      passQueued = false;
      if (stopped) return;
      await pass().catch((error: unknown) => log.warn({ err: error }, 'webhook dispatch pass failed; trying again'));
      // A failed look says nothing of what is due: the next sweep tries again.
      await plan().catch(() => {
        if (!stopped) wake.in(sweepMs);
      });
    });
  };
  return {
    start() {
      if (!stopped) return;
      stopped = false;
      unwatch = store.watchOutbox(queuePass);
      queuePass();
    },
    async stop() {
      stopped = true;
      unwatch?.();
      wake.clear();
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

/** The endpoints no attempt may start on now: their slots are full or their circuit is open. */
function fullEndpoints(inFlight: InFlight, circuits: ReadonlyMap<string, Circuit>, limits: SlotLimits, at: number): string[] {
  return [...new Set([...inFlight.endpoints.keys(), ...circuits.keys()])].filter(
    (id) => endpointRoom(id, inFlight, circuits, limits, at) === 0,
  );
}

/** When the next pass should run: the outbox's next due time (nextWakeAt says how it counts) and this instance's own times. */
async function nextPassAt(
  store: WebhookStore,
  state: {
    inFlight: InFlight;
    circuits: ReadonlyMap<string, Circuit>;
    limits: SlotLimits;
    attempts: number;
    scanAt: number;
    sweepMs: number;
  },
  at: number,
): Promise<number> {
  const due = await store.nextDueAt(fullEndpoints(state.inFlight, state.circuits, state.limits, at));
  return nextWakeAt({
    at,
    dueAt: due === undefined ? undefined : Date.parse(due),
    attemptsInFlight: state.attempts,
    circuitsOpenUntil: [...state.circuits.values()].map((c) => c.openUntil ?? -Infinity),
    scanAt: state.scanAt,
    sweepMs: state.sweepMs,
  });
}

/** One wake-up pending at most: a new one replaces it. It never keeps the process alive. */
function wakeTimer(wake: () => void) {
  let timer: NodeJS.Timeout | undefined;
  return {
    in(ms: number) {
      clearTimeout(timer);
      timer = setTimeout(wake, Math.max(0, ms));
      timer.unref();
    },
    clear: () => clearTimeout(timer),
  };
}

/** One attempt in its slot: its endpoint's circuit settled after it, then `onEnd`, whatever happened. */
function startAttempt(
  parts: {
    options: WebhookDispatcherOptions;
    slots: ReturnType<typeof inFlightSlots>;
    circuits: ReturnType<typeof endpointCircuits>;
    attempts: Set<Promise<void>>;
  },
  delivery: ClaimedDelivery,
  onEnd: () => void,
): Promise<void> {
  const { options, slots, circuits, attempts } = parts;
  slots.add(delivery);
  // The slot is free before the circuit is settled, so postponing the endpoint includes this delivery.
  const running = attemptDelivery(options, delivery)
    .finally(() => slots.remove(delivery))
    .then((delivered) => circuits.settle(delivery.endpointId, delivered))
    .catch((error: unknown) =>
      options.log.warn(
        { err: error, endpointId: delivery.endpointId },
        'webhook attempt or its circuit failed to be recorded; a lease brings the delivery back',
      ),
    )
    .finally(() => {
      attempts.delete(running);
      onEnd();
    });
  attempts.add(running);
  return running;
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
