import { sql } from 'kysely';
import type { DueDelivery } from '../domain/webhook-scheduling';
import type { WebhookEventType } from '../domain/webhooks';
import type { ClaimedDelivery, WebhookStore } from '../services/webhook-store';
import type { StoreContext } from './store-tables';

type OutboxQueries = Pick<WebhookStore, 'dueDeliveries' | 'nextDueAt' | 'claim' | 'postponeEndpoint' | 'watchOutbox'>;

/** The outbox's side of dispatching: listing what is due and when the next is, claiming it, postponing an endpoint's deliveries, waking on writes. */
export function outboxQueries(store: StoreContext): OutboxQueries {
  return {
    dueDeliveries: (now, options) => dueDeliveries(store, now, options),
    nextDueAt: (skipEndpoints) => nextDueAt(store, skipEndpoints),
    watchOutbox: (onWrite) => store.dialect.outbox.listen(onWrite),
    claim: (deliveries, now, leaseUntil) => claim(store, deliveries, now, leaseUntil),
    postponeEndpoint: (endpointId, until, options) => postponeEndpoint(store, endpointId, until, options),
  };
}

/**
 * Each endpoint's oldest due deliveries (at most `perEndpoint` of each), every endpoint's first
 * before any endpoint's second, so one endpoint with a long queue never fills the list.
 */
async function dueDeliveries(
  { db }: StoreContext,
  now: string,
  { perEndpoint, limit, skipEndpoints }: Parameters<WebhookStore['dueDeliveries']>[1],
): Promise<DueDelivery[]> {
  const skip = skipEndpoints.length === 0 ? sql`` : sql`AND d.endpoint_id NOT IN (${sql.join([...skipEndpoints])})`;
  const rows = await sql<{ event_id: string; endpoint_id: string; account_id: string }>`
    SELECT event_id, endpoint_id, account_id FROM (
      SELECT d.event_id, d.endpoint_id, e.account_id, d.next_attempt_at,
             ROW_NUMBER() OVER (PARTITION BY d.endpoint_id ORDER BY d.next_attempt_at, d.event_id) AS endpoint_rank
        FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
       WHERE d.status = 'pending' AND d.next_attempt_at <= ${now} ${skip}) due
     WHERE endpoint_rank <= ${perEndpoint}
     ORDER BY endpoint_rank, next_attempt_at, event_id
     LIMIT ${limit}`.execute(db);
  return rows.rows.map((row) => ({ eventId: row.event_id, endpointId: row.endpoint_id, accountId: row.account_id }));
}

/** The earliest next attempt of a pending delivery (the partial index webhook_deliveries_due), endpoints in `skipEndpoints` left out. */
async function nextDueAt({ db }: StoreContext, skipEndpoints: readonly string[]): Promise<string | undefined> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select('next_attempt_at')
    .where('status', '=', 'pending')
    .$if(skipEndpoints.length > 0, (q) => q.where('endpoint_id', 'not in', [...skipEndpoints]))
    .orderBy('next_attempt_at')
    .limit(1)
    .executeTakeFirst();
  return row?.next_attempt_at;
}

async function claim(
  { db, dialect }: StoreContext,
  deliveries: readonly Pick<DueDelivery, 'eventId' | 'endpointId'>[],
  now: string,
  leaseUntil: string,
): Promise<ClaimedDelivery[]> {
  if (deliveries.length === 0) return [];
  // One statement, and only rows still due: a row another instance claimed since it was listed has
  // its lease as due time now (SQLite holds the write lock; PostgreSQL skips rows locked by another
  // claim, and re-reads a row it waited for).
  const skipLocked = dialect.name === 'postgres' ? sql`FOR UPDATE SKIP LOCKED` : sql``;
  const pairs = sql.join(
    deliveries.map((d) => sql`(event_id = ${d.eventId} AND endpoint_id = ${d.endpointId})`),
    sql` OR `,
  );
  const claimed = await sql<{ event_id: string; endpoint_id: string; attempts: number }>`
    UPDATE webhook_deliveries SET next_attempt_at = ${leaseUntil}, attempts = attempts + 1, last_attempt_at = ${now}
     WHERE status = 'pending' AND (event_id, endpoint_id) IN (
       SELECT event_id, endpoint_id FROM webhook_deliveries
        WHERE status = 'pending' AND next_attempt_at <= ${now} AND (${pairs}) ${skipLocked})
    RETURNING event_id, endpoint_id, attempts`.execute(db);
  if (claimed.rows.length === 0) return [];
  const eventIds = [...new Set(claimed.rows.map((row) => row.event_id))];
  const endpointIds = [...new Set(claimed.rows.map((row) => row.endpoint_id))];
  const events = new Map(
    (await db.selectFrom('webhook_events').select(['id', 'type', 'data', 'created_at']).where('id', 'in', eventIds).execute()).map(
      (row) => [row.id, row],
    ),
  );
  const endpoints = new Map(
    (await db.selectFrom('webhook_endpoints').select(['id', 'account_id', 'url', 'secret']).where('id', 'in', endpointIds).execute()).map(
      (row) => [row.id, row],
    ),
  );
  return claimed.rows.flatMap((row) => {
    const event = events.get(row.event_id);
    const endpoint = endpoints.get(row.endpoint_id);
    // Removed since the claim (its deliveries went with it): nothing to send.
    if (!event || !endpoint) return [];
    return [
      {
        eventId: row.event_id,
        endpointId: row.endpoint_id,
        accountId: endpoint.account_id,
        attempt: Number(row.attempts),
        type: event.type as WebhookEventType,
        data: event.data,
        eventCreatedAt: event.created_at,
        url: endpoint.url,
        sealedSecret: endpoint.secret,
      },
    ];
  });
}

/**
 * Moves the endpoint's pending deliveries due before `until` to `until` (their attempts and
 * backoff unchanged), and marks failed those of events created before `giveUpBefore` (their next
 * attempt would come after their day of retries), except the deliveries in `inFlight`.
 */
async function postponeEndpoint(
  { db, dialect }: StoreContext,
  endpointId: string,
  until: string,
  { giveUpBefore, inFlight, error }: Parameters<WebhookStore['postponeEndpoint']>[2],
) {
  return dialect.writeTransaction(db, async (trx) => {
    const failed = await trx
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', last_error: error.slice(0, 300) })
      .where('endpoint_id', '=', endpointId)
      .where('status', '=', 'pending')
      .$if(inFlight.length > 0, (q) => q.where('event_id', 'not in', [...inFlight]))
      .where('event_id', 'in', (eb) => eb.selectFrom('webhook_events').select('id').where('created_at', '<', giveUpBefore))
      .executeTakeFirst();
    const postponed = await trx
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: until })
      .where('endpoint_id', '=', endpointId)
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<', until)
      .$if(inFlight.length > 0, (q) => q.where('event_id', 'not in', [...inFlight]))
      .executeTakeFirst();
    return { postponed: Number(postponed.numUpdatedRows), failed: Number(failed.numUpdatedRows) };
  });
}
