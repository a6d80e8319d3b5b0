import type { SecretBox } from '../domain/secret-box';
import {
  DEFAULT_RETRY_SCHEDULE,
  dueExpiryEvent,
  EXPIRED_LOOKBACK_MS,
  eventBody,
  expiryEventIdentity,
  nextAttemptAt,
  signedHeaders,
  type KeyExpiryData,
  type RetrySchedule,
} from '../domain/webhooks';
import type { AttemptOutcome, ClaimedDelivery, NewWebhookEvent, WebhookStore } from './webhook-store';

/**
 * The outbox's dispatcher, one per instance, off every request's path: each round it writes the
 * expiry events that have come due (at most every `scanEveryMs`), claims due deliveries (a lease:
 * a claim whose instance dies is due again when the lease ends) and posts them, signed, each with a
 * 5 s timeout; a failed attempt is retried with exponential backoff and jitter until the event is a
 * day old, then marked failed. Nothing is lost on a restart: every step is a row.
 */
export interface WebhookDispatcher {
  /** Starts the rounds (every `pollMs`). */
  start(): void;
  /** Stops the rounds and waits for the one in progress. */
  stop(): Promise<void>;
  /** One round now: the expiry scan if due, then one batch of deliveries; how many were attempted. */
  round(): Promise<number>;
}

/** Posts one signed webhook; never throws (every failure is an outcome without a status). */
export type WebhookPost = (
  url: string,
  headers: Record<string, string>,
  body: string,
) => Promise<{ status: number | null; error?: string }>;

export interface WebhookDispatcherOptions {
  store: WebhookStore;
  secrets: () => SecretBox;
  post: WebhookPost;
  clock: () => Date;
  log: { warn(details: object, message: string): void; debug(details: object, message: string): void };
  schedule?: RetrySchedule;
  /** Pause between rounds (default 1 s). */
  pollMs?: number;
  /** Pause between expiry scans (default 1 min). */
  scanEveryMs?: number;
  /** Deliveries claimed per round (default 20). */
  batch?: number;
  /** How long a claim holds a delivery (default 1 min, well over the 5 s an attempt may take). */
  leaseMs?: number;
  random?: () => number;
}

const WEEK_MS = 7 * 86_400_000;

export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const { store, clock, log, pollMs = 1000, scanEveryMs = 60_000, batch = 20, leaseMs = 60_000 } = options;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = true;
  let scannedAt = -Infinity;

  const round = async (): Promise<number> => {
    const now = clock();
    if (now.getTime() - scannedAt >= scanEveryMs) {
      scannedAt = now.getTime();
      await writeDueExpiryEvents(store, now);
    }
    const claimed = await store.claimDue(now.toISOString(), new Date(now.getTime() + leaseMs).toISOString(), batch);
    await Promise.all(claimed.map((delivery) => attempt(options, delivery)));
    return claimed.length;
  };
  const loop = () => {
    if (stopped) return;
    running = round()
      .catch((error: unknown) => log.warn({ err: error }, 'webhook dispatch round failed; trying again'))
      .finally(() => {
        if (!stopped) timer = setTimeout(loop, pollMs);
      });
  };
  return {
    start() {
      if (!stopped) return;
      stopped = false;
      loop();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
    round,
  };
}

/** Writes the expiry events due now (each once, by identity) for keys ending within a week or ended lately. */
async function writeDueExpiryEvents(store: WebhookStore, now: Date): Promise<void> {
  const keys = await store.endingKeys(
    new Date(now.getTime() - EXPIRED_LOOKBACK_MS).toISOString(),
    new Date(now.getTime() + WEEK_MS).toISOString(),
  );
  const events: NewWebhookEvent[] = [];
  for (const key of keys) {
    const due = dueExpiryEvent(key.expiresAt, now);
    if (!due) continue;
    const data: KeyExpiryData = {
      accountId: key.accountId,
      keyId: key.keyId,
      expiresAt: key.expiresAt,
      ...(due.type === 'key.expiring' ? { daysBefore: due.daysBefore } : {}),
    };
    events.push({ identity: expiryEventIdentity(key.keyId, key.expiresAt, due), accountId: key.accountId, type: due.type, data });
  }
  if (events.length === 0) return;
  const existing = await store.existingIdentities(events.map((event) => event.identity));
  for (const event of events) if (!existing.has(event.identity)) await store.recordEvent(event, now.toISOString());
}

/** Signs and posts one claimed delivery and records the outcome. */
async function attempt(
  { store, secrets, post, clock, log, schedule = DEFAULT_RETRY_SCHEDULE, random = Math.random }: WebhookDispatcherOptions,
  delivery: ClaimedDelivery,
): Promise<void> {
  const body = eventBody(delivery.type, delivery.eventCreatedAt, JSON.parse(delivery.data));
  let secret: string | undefined;
  try {
    secret = secrets().open(delivery.sealedSecret, delivery.endpointId);
  } catch {
    // A wrong key (or a tampered row): retried, in case the right key comes back.
  }
  const result =
    secret === undefined
      ? { status: null, error: 'the endpoint secret could not be opened (was WEBHOOK_SECRET_KEY changed?)' }
      : await post(delivery.url, signedHeaders(secret, delivery.eventId, clock(), body), body);
  const now = clock();
  let outcome: AttemptOutcome;
  if (result.error === undefined && result.status !== null) {
    outcome = { kind: 'delivered', status: result.status };
  } else {
    const error = (result.error ?? 'failed').slice(0, 300);
    const next = nextAttemptAt(schedule, delivery.attempt, delivery.eventCreatedAt, now, random);
    outcome = next
      ? { kind: 'retry', status: result.status, error, nextAttemptAt: next.toISOString() }
      : { kind: 'failed', status: result.status, error };
    const details = {
      endpointId: delivery.endpointId,
      eventId: delivery.eventId,
      type: delivery.type,
      attempt: delivery.attempt,
      status: result.status,
      error,
    };
    if (next) log.debug({ ...details, nextAttemptAt: next.toISOString() }, 'webhook delivery failed; retrying later');
    else log.warn(details, 'webhook delivery failed for a day: given up');
  }
  await store.finishAttempt(delivery, outcome, now.toISOString());
}
