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

/** Posts one signed webhook; never throws (every failure is an outcome without a status). */
export type WebhookPost = (
  url: string,
  headers: Record<string, string>,
  body: string,
) => Promise<{ status: number | null; error?: string }>;

export interface AttemptDependencies {
  store: WebhookStore;
  secrets: () => SecretBox;
  post: WebhookPost;
  clock: () => Date;
  log: { warn(details: object, message: string): void; debug(details: object, message: string): void };
  schedule?: RetrySchedule;
  random?: () => number;
}

const WEEK_MS = 7 * 86_400_000;

/** Writes the expiry events due now (each once, by identity) for keys ending within a week or ended lately. */
export async function writeDueExpiryEvents(store: WebhookStore, now: Date): Promise<void> {
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

/** Signs and posts one claimed delivery and records the outcome; true when it was delivered. */
export async function attemptDelivery(deps: AttemptDependencies, delivery: ClaimedDelivery): Promise<boolean> {
  const { store, secrets, post, clock, log, schedule = DEFAULT_RETRY_SCHEDULE, random = Math.random } = deps;
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
  return outcome.kind === 'delivered';
}
