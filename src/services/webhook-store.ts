import type { DueDelivery } from '../domain/webhook-scheduling';
import type { WebhookEventType } from '../domain/webhooks';

/**
 * Webhook endpoints and the durable outbox of their events, in the account database. Events are
 * rows with a unique identity (inserted with ON CONFLICT DO NOTHING: written once, whichever
 * instance gets there first); each event gets one delivery row per endpoint of its account at the
 * time it is written. Quota events are written by the quota charge itself, in its transaction
 * (consumeQuotaUpTo); expiry events by the dispatcher's scan. Timestamps are ISO 8601 UTC text.
 */
export interface WebhookEndpointRecord {
  id: string;
  accountId: string;
  url: string;
  createdAt: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One event's delivery to one endpoint, as the account sees it. */
export interface WebhookDeliveryRecord {
  eventId: string;
  type: WebhookEventType;
  /** When the event happened. */
  createdAt: string;
  status: DeliveryStatus;
  attempts: number;
  lastAttemptAt: string | null;
  /** The HTTP status of the last attempt; null when it got none (refused, timed out, unreachable). */
  lastStatus: number | null;
  /** Why the last attempt failed; null after a success or before any attempt. */
  lastError: string | null;
  deliveredAt: string | null;
  /** The next attempt, while pending. */
  nextAttemptAt: string | null;
}

/** A delivery claimed for an attempt, with what it takes to make it. */
export interface ClaimedDelivery {
  eventId: string;
  endpointId: string;
  /** The endpoint's account. */
  accountId: string;
  /** The attempt this claim is (1 for the first); finishing it is conditional on it, so a stale claim changes nothing. */
  attempt: number;
  type: WebhookEventType;
  /** The event's data as stored (JSON text). */
  data: string;
  eventCreatedAt: string;
  url: string;
  /** The endpoint's secret as sealed at rest (secret-box.ts). */
  sealedSecret: string;
}

export interface NewWebhookEvent {
  identity: string;
  accountId: string;
  type: WebhookEventType;
  data: object;
}

/** A key whose end is near or recently past, for the expiry scan. */
export interface EndingKey {
  keyId: string;
  accountId: string;
  expiresAt: string;
}

export type AttemptOutcome =
  | { kind: 'delivered'; status: number }
  | { kind: 'retry'; status: number | null; error: string; nextAttemptAt: string }
  | { kind: 'failed'; status: number | null; error: string };

export interface WebhookStore {
  /**
   * Stores an endpoint (its id chosen by the caller, the secret already sealed). NOT_FOUND for an
   * unknown account; INVALID_REQUEST (param `url`) when the account has `maxEndpoints` already
   * (counted and inserted in one write transaction).
   */
  addEndpoint(endpoint: WebhookEndpointRecord, sealedSecret: string, maxEndpoints: number): Promise<void>;
  /** The account's endpoints, oldest first. */
  listEndpoints(accountId: string): Promise<WebhookEndpointRecord[]>;
  /** Each endpoint's latest `perEndpoint` deliveries (newest first) and its failed and pending counts. */
  recentDeliveries(
    endpointIds: readonly string[],
    perEndpoint: number,
  ): Promise<Map<string, { deliveries: WebhookDeliveryRecord[]; failed: number; pending: number }>>;
  /** Deletes the account's endpoint and its deliveries; false when the account has no such endpoint. */
  removeEndpoint(accountId: string, endpointId: string): Promise<boolean>;
  /** Writes the event once (by identity) and a pending delivery to each endpoint of its account; false when it existed. */
  recordEvent(event: NewWebhookEvent, at: string): Promise<boolean>;
  /** Which of these identities are written already. */
  existingIdentities(identities: readonly string[]): Promise<Set<string>>;
  /** Keys not revoked whose end lies between `from` and `to`. */
  endingKeys(from: string, to: string): Promise<EndingKey[]>;
  /**
   * Pending deliveries due at `now`, at most `perEndpoint` of each endpoint and `limit` in all, every
   * endpoint's oldest before any endpoint's second; none of the endpoints in `skipEndpoints`.
   */
  dueDeliveries(now: string, options: { perEndpoint: number; limit: number; skipEndpoints: readonly string[] }): Promise<DueDelivery[]>;
  /** When the earliest pending delivery not of `skipEndpoints` is due (its next attempt, a lease's end included); undefined when none is pending. */
  nextDueAt(skipEndpoints: readonly string[]): Promise<string | undefined>;
  /**
   * Calls `onWrite` when deliveries may have been added: after this process wrote an event, and on
   * PostgreSQL after any process's insert committed (LISTEN/NOTIFY) and after the listening connection
   * came back. Best effort: a dispatcher still sweeps now and then. Returns the unsubscribe.
   */
  watchOutbox(onWrite: () => void): () => void;
  /**
   * Claims these deliveries for an attempt, those still pending and due at `now`: each one's next
   * attempt moves to `leaseUntil` (a claim whose process died is due again then) and its attempts
   * count goes up. Several instances claim at once without sharing a row (PostgreSQL: FOR UPDATE
   * SKIP LOCKED); what another instance claimed first is left out of the answer.
   */
  claim(deliveries: readonly Pick<DueDelivery, 'eventId' | 'endpointId'>[], now: string, leaseUntil: string): Promise<ClaimedDelivery[]>;
  /**
   * An endpoint whose circuit opened: its pending deliveries due before `until` wait until then
   * (attempts unchanged); those of events created before `giveUpBefore` are marked failed with
   * `error`. Deliveries in `inFlight` (event ids) are left as they are.
   */
  postponeEndpoint(
    endpointId: string,
    until: string,
    options: { giveUpBefore: string; inFlight: readonly string[]; error: string },
  ): Promise<{ postponed: number; failed: number }>;
  /** Records an attempt's outcome, unless the delivery was claimed again since (then false). */
  finishAttempt(
    delivery: Pick<ClaimedDelivery, 'eventId' | 'endpointId' | 'attempt'>,
    outcome: AttemptOutcome,
    at: string,
  ): Promise<boolean>;
}
