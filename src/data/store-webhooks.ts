import { sql } from 'kysely';
import { tooManyEndpoints } from '../domain/account-bounds';
import { ApiError } from '../domain/errors';
import { crossedThresholds, newEventId, quotaEventIdentity, type QuotaThresholdData, type WebhookEventType } from '../domain/webhooks';
import type { AttemptOutcome, DeliveryStatus, NewWebhookEvent, WebhookDeliveryRecord, WebhookStore } from '../services/webhook-store';
import { outboxQueries } from './store-webhook-outbox';
import { lockAccount, type StoreContext, type Trx } from './store-tables';

/** The webhook endpoints and the events' outbox (services/webhook-store.ts), one query each for both databases. */
export function webhookQueries(store: StoreContext): WebhookStore {
  return { ...endpointQueries(store), ...eventQueries(store), ...outboxQueries(store) };
}

/** An account's endpoints: added within its bound, listed with their recent deliveries, removed. */
function endpointQueries(store: StoreContext): Pick<WebhookStore, 'addEndpoint' | 'listEndpoints' | 'removeEndpoint' | 'recentDeliveries'> {
  const { db, dialect } = store;
  return {
    async addEndpoint(endpoint, sealedSecret, maxEndpoints) {
      await dialect.writeTransaction(db, async (trx) => {
        if (!(await lockAccount(store, trx, endpoint.accountId)))
          throw new ApiError('NOT_FOUND', `No account has the id '${endpoint.accountId}'.`);
        const held = await trx
          .selectFrom('webhook_endpoints')
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .where('account_id', '=', endpoint.accountId)
          .executeTakeFirstOrThrow();
        if (Number(held.n) >= maxEndpoints) throw tooManyEndpoints(maxEndpoints);
        await trx
          .insertInto('webhook_endpoints')
          .values({
            id: endpoint.id,
            account_id: endpoint.accountId,
            url: endpoint.url,
            secret: sealedSecret,
            created_at: endpoint.createdAt,
          })
          .execute();
      });
    },
    async listEndpoints(accountId) {
      const rows = await db
        .selectFrom('webhook_endpoints')
        .select(['id', 'account_id', 'url', 'created_at'])
        .where('account_id', '=', accountId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map((row) => ({ id: row.id, accountId: row.account_id, url: row.url, createdAt: row.created_at }));
    },
    recentDeliveries: (endpointIds, perEndpoint) => recentDeliveries(store, endpointIds, perEndpoint),
    async removeEndpoint(accountId, endpointId) {
      return dialect.writeTransaction(db, async (trx) => {
        const found = await trx
          .selectFrom('webhook_endpoints')
          .select('id')
          .where('id', '=', endpointId)
          .where('account_id', '=', accountId)
          .executeTakeFirst();
        if (!found) return false;
        await trx.deleteFrom('webhook_deliveries').where('endpoint_id', '=', endpointId).execute();
        await trx.deleteFrom('webhook_endpoints').where('id', '=', endpointId).execute();
        return true;
      });
    },
  };
}

/** Events, their identities, the keys whose end is near, and an attempt's outcome. */
function eventQueries(store: StoreContext): Pick<WebhookStore, 'recordEvent' | 'existingIdentities' | 'endingKeys' | 'finishAttempt'> {
  const { db, dialect } = store;
  return {
    async recordEvent(event, at) {
      return dialect.writeTransaction(db, (trx) => recordEventIn(store, trx, event, at));
    },
    async existingIdentities(identities) {
      if (identities.length === 0) return new Set();
      const rows = await db
        .selectFrom('webhook_events')
        .select('identity')
        .where('identity', 'in', [...identities])
        .execute();
      return new Set(rows.map((row) => row.identity));
    },
    async endingKeys(from, to) {
      const rows = await db
        .selectFrom('api_keys')
        .select(['id', 'account_id', 'expires_at'])
        .where('revoked_at', 'is', null)
        .where('expires_at', 'is not', null)
        .where('expires_at', '>', from)
        .where('expires_at', '<=', to)
        .orderBy('expires_at')
        .execute();
      return rows.map((row) => ({ keyId: row.id, accountId: row.account_id, expiresAt: row.expires_at! }));
    },
    async finishAttempt(delivery, outcome, at) {
      const result = await db
        .updateTable('webhook_deliveries')
        .set(outcomeColumns(outcome, at))
        .where('event_id', '=', delivery.eventId)
        .where('endpoint_id', '=', delivery.endpointId)
        .where('attempts', '=', delivery.attempt)
        .where('status', '=', 'pending')
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}

/**
 * Writes the event if its identity is new, and a pending delivery, due at once, to every endpoint
 * its account has now; false when the identity was taken (the event happened already). Runs inside
 * the caller's transaction (the quota charge's, for quota events). This process's dispatcher is
 * woken at once: its pass queries after the transaction (SQLite: one connection; PostgreSQL: the
 * notification of the commit wakes it again).
 */
export async function recordEventIn(store: StoreContext, q: Trx, event: NewWebhookEvent, at: string): Promise<boolean> {
  const id = newEventId();
  const inserted = await q
    .insertInto('webhook_events')
    .values({
      id,
      identity: event.identity,
      account_id: event.accountId,
      type: event.type,
      data: JSON.stringify(event.data),
      created_at: at,
    })
    .onConflict((oc) => oc.column('identity').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!inserted) return false;
  await q
    .insertInto('webhook_deliveries')
    .columns(['event_id', 'endpoint_id', 'next_attempt_at'])
    .expression(
      q
        .selectFrom('webhook_endpoints')
        .select([sql<string>`${id}`.as('event_id'), 'id', sql<string>`${at}`.as('next_attempt_at')])
        .where('account_id', '=', event.accountId),
    )
    .execute();
  store.dialect.outbox.announce();
  return true;
}

/** The quota events of a charge that took the month from `before` to `after` under `limit`. */
export function quotaEvents(accountId: string, month: string, limit: number, before: number, after: number): NewWebhookEvent[] {
  return crossedThresholds(limit, before, after).map((threshold) => {
    const data: QuotaThresholdData = { accountId, threshold, used: after, limit, period: month };
    return { identity: quotaEventIdentity(accountId, month, threshold), accountId, type: 'quota.threshold', data };
  });
}

function outcomeColumns(outcome: AttemptOutcome, at: string) {
  switch (outcome.kind) {
    case 'delivered':
      return { status: 'delivered', last_status: outcome.status, last_error: null, delivered_at: at, last_attempt_at: at };
    case 'retry':
      return { last_status: outcome.status, last_error: outcome.error, next_attempt_at: outcome.nextAttemptAt, last_attempt_at: at };
    case 'failed':
      return { status: 'failed', last_status: outcome.status, last_error: outcome.error, last_attempt_at: at };
  }
}

async function recentDeliveries({ db }: StoreContext, endpointIds: readonly string[], perEndpoint: number) {
  const result = new Map<string, { deliveries: WebhookDeliveryRecord[]; failed: number; pending: number }>();
  if (endpointIds.length === 0) return result;
  for (const id of endpointIds) result.set(id, { deliveries: [], failed: 0, pending: 0 });
  const counts = await db
    .selectFrom('webhook_deliveries')
    .select(['endpoint_id', 'status', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('endpoint_id', 'in', [...endpointIds])
    .where('status', 'in', ['failed', 'pending'])
    .groupBy(['endpoint_id', 'status'])
    .execute();
  for (const row of counts) {
    const entry = result.get(row.endpoint_id)!;
    if (row.status === 'failed') entry.failed = Number(row.n);
    else entry.pending = Number(row.n);
  }
  for (const id of endpointIds) {
    const rows = await db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
      .select([
        'd.event_id',
        'e.type',
        'e.created_at',
        'd.status',
        'd.attempts',
        'd.last_attempt_at',
        'd.last_status',
        'd.last_error',
        'd.delivered_at',
        'd.next_attempt_at',
      ])
      .where('d.endpoint_id', '=', id)
      .orderBy('e.created_at', 'desc')
      .orderBy('d.event_id', 'desc')
      .limit(perEndpoint)
      .execute();
    result.get(id)!.deliveries = rows.map((row) => ({
      eventId: row.event_id,
      type: row.type as WebhookEventType,
      createdAt: row.created_at,
      status: row.status as DeliveryStatus,
      attempts: Number(row.attempts),
      lastAttemptAt: row.last_attempt_at,
      lastStatus: row.last_status === null ? null : Number(row.last_status),
      lastError: row.last_error,
      deliveredAt: row.delivered_at,
      nextAttemptAt: row.status === 'pending' ? row.next_attempt_at : null,
    }));
  }
  return result;
}
