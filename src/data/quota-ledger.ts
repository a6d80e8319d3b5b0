import type pg from 'pg';
import { NO_DEADLINE } from './pg-client';

/**
 * Charges that can be cancelled by their id, on PostgreSQL. A charge whose answer never arrived (deadline passed, connection lost)
 * may still commit later: the statement can sit in a network buffer and reach the server after the
 * request was answered 503. So every charge writes a row of its own id in the same transaction as
 * the usage it adds, and a request that gives up cancels that id (cancelCharges): whichever reaches
 * the server first, the two serialise on the id's primary key.
 * - the cancellation first: it leaves a cancelled row; the charge finds the id taken and grants 0;
 * - the charge first (or still running: the cancellation waits for its commit): the cancellation
 *   marks the row cancelled and takes the granted amount back out of the usage, once (a second
 *   cancellation of the same id finds it cancelled and does nothing).
 * Rows older than KEEP are pruned: long after any late statement could still arrive.
 *
 * The same statement reads the keys revision (key-cache.ts), so a turn's charge and its revision
 * read are one round trip: given the revision its caller authenticated under, a charge made after
 * the keys changed grants nothing and says so (`keysRevision` differs), and the caller checks its
 * keys again before it charges anew.
 */

const DDL = `
CREATE TABLE IF NOT EXISTS quota_charges (
  id          TEXT PRIMARY KEY,
  account_id  TEXT NOT NULL,
  month       TEXT NOT NULL,
  granted     BIGINT NOT NULL DEFAULT 0,
  cancelled   BOOLEAN NOT NULL DEFAULT false,
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS quota_charges_created ON quota_charges (created_at);
-- The UTC day whose delivered conversions the charge added to (null: none), for its cancellation.
ALTER TABLE quota_charges ADD COLUMN IF NOT EXISTS day TEXT;
-- Earlier versions created a five-, a six- and a seven-argument charge_quota; they stay for their
-- processes during an upgrade (a different argument list is another function to PostgreSQL).
-- p_at (the charge's time, ISO 8601 text) dates the quota events a charge writes when it crosses
-- 80 % or 100 % of p_limit (the thresholds of src/domain/webhooks.ts, and its identity, data and
-- id formats): in this transaction, once per identity, with a pending delivery per endpoint.
CREATE OR REPLACE FUNCTION charge_quota(p_id text, p_account text, p_month text, p_wanted bigint, p_limit bigint, p_revision bigint, p_day text, p_at text,
  OUT o_granted bigint, OUT o_used bigint, OUT o_revision bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_before bigint;
  v_percent int;
  v_mark bigint;
  v_event text;
BEGIN
  -- Read first, in this statement's own snapshot: a revocation committed before the charge was
  -- sent is seen here.
  SELECT r.value INTO o_revision FROM revisions r WHERE r.name = 'keys';
  IF p_revision IS NOT NULL AND o_revision IS DISTINCT FROM p_revision THEN
    -- The keys changed since the caller authenticated: nothing is charged and no id is kept (the
    -- caller charges again, under a new id, once its key is checked).
    o_granted := 0;
    o_used := 0;
    RETURN;
  END IF;
  INSERT INTO quota_charges (id, account_id, month, day) VALUES (p_id, p_account, p_month, p_day) ON CONFLICT (id) DO NOTHING;
  IF NOT FOUND THEN
    -- Cancelled before it ran: it counts nothing.
    o_granted := 0;
    SELECT coalesce(max(u.used), 0) INTO o_used FROM usage u WHERE u.account_id = p_account AND u.month = p_month;
    RETURN;
  END IF;
  INSERT INTO usage (account_id, month, used) VALUES (p_account, p_month, 0) ON CONFLICT (account_id, month) DO NOTHING;
  SELECT u.used INTO v_before FROM usage u WHERE u.account_id = p_account AND u.month = p_month FOR UPDATE;
  o_granted := greatest(0, least(p_wanted, p_limit - v_before));
  o_used := v_before;
  IF o_granted > 0 THEN
    UPDATE usage u SET used = u.used + o_granted WHERE u.account_id = p_account AND u.month = p_month RETURNING u.used INTO o_used;
    UPDATE quota_charges SET granted = o_granted WHERE id = p_id;
    IF p_day IS NOT NULL THEN
      INSERT INTO usage_days (account_id, day, delivered) VALUES (p_account, p_day, o_granted)
      ON CONFLICT (account_id, day) DO UPDATE SET delivered = usage_days.delivered + excluded.delivered;
    END IF;
    IF p_limit > 0 THEN
      FOREACH v_percent IN ARRAY ARRAY[80, 100] LOOP
        v_mark := (p_limit * v_percent + 99) / 100;
        IF v_before < v_mark AND o_used >= v_mark THEN
          v_event := 'msg_' || replace(gen_random_uuid()::text, '-', '');
          INSERT INTO webhook_events (id, identity, account_id, type, data, created_at)
          VALUES (v_event, 'quota.threshold:' || p_account || ':' || p_month || ':' || v_percent, p_account, 'quota.threshold',
                  json_build_object('accountId', p_account, 'threshold', v_percent, 'used', o_used, 'limit', p_limit, 'period', p_month)::text, p_at)
          ON CONFLICT (identity) DO NOTHING;
          IF FOUND THEN
            INSERT INTO webhook_deliveries (event_id, endpoint_id, next_attempt_at)
            SELECT v_event, w.id, p_at FROM webhook_endpoints w WHERE w.account_id = p_account;
          END IF;
        END IF;
      END LOOP;
    END IF;
  END IF;
END
$$;
-- One id at a time, each statement with a fresh snapshot: the usage row a racing charge created
-- (the month's first) is seen once that charge has committed, which the ledger insert waits for.
CREATE OR REPLACE FUNCTION cancel_quota_charges(p_ids text[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_id text;
  v_account text;
  v_month text;
  v_granted bigint;
  v_day text;
BEGIN
  FOREACH v_id IN ARRAY p_ids LOOP
    INSERT INTO quota_charges (id, account_id, month, cancelled) VALUES (v_id, '', '', true)
    ON CONFLICT (id) DO UPDATE SET cancelled = true WHERE NOT quota_charges.cancelled
    RETURNING quota_charges.account_id, quota_charges.month, quota_charges.granted, quota_charges.day INTO v_account, v_month, v_granted, v_day;
    IF FOUND AND v_granted > 0 THEN
      UPDATE usage u SET used = u.used - v_granted WHERE u.account_id = v_account AND u.month = v_month;
      IF v_day IS NOT NULL THEN
        UPDATE usage_days d SET delivered = d.delivered - v_granted WHERE d.account_id = v_account AND d.day = v_day;
      END IF;
    END IF;
  END LOOP;
END
$$;
`;

/** Any fixed number: keeps two processes' first CREATE OR REPLACE from racing. */
const LEDGER_LOCK = 0x5175_6f74; // "Quot"
/** How long a charge's row is kept: a late statement arrives within TCP's retransmission limits, minutes at most. */
const KEEP = '10 minutes';
const PRUNE_EVERY_MS = 60_000;

export interface LedgerCharge {
  granted: number;
  /** The month's usage after the charge (0 when it was refused for a moved revision). */
  used: number;
  /** The keys revision the statement read before charging, when one was given to check. */
  keysRevision?: number;
}

export interface QuotaLedger {
  /**
   * Grants up to `wanted` under `limit` as charge `id` (one round trip); what was granted and the
   * usage after. With `keysRevision`, also the keys revision the statement read: one that has moved
   * from it grants nothing and keeps no id.
   */
  charge(
    id: string,
    accountId: string,
    month: string,
    limit: number,
    wanted: number,
    keysRevision?: number,
    day?: string,
    at?: string,
  ): Promise<LedgerCharge>;
  /** Cancels these charges (idempotent): what they granted is taken back; one not run yet will grant nothing. */
  cancel(ids: readonly string[]): Promise<void>;
}

export function quotaLedger(pool: pg.Pool): QuotaLedger {
  let ready: Promise<void> | undefined;
  let prunedAt = 0;
  // Created on first use, not by a migration: the schema versions stay those of the accounts.
  const ensure = () =>
    (ready ??= (async () => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query({ text: 'SELECT pg_advisory_xact_lock($1)', values: [LEDGER_LOCK], [NO_DEADLINE]: true } as pg.QueryConfig);
        await client.query(DDL);
        await client.query('COMMIT');
        client.release();
      } catch (error) {
        client.release(error as Error);
        throw error;
      }
    })().catch((error: unknown) => {
      ready = undefined;
      throw error;
    }));
  let created = false;
  const prune = () => {
    const now = Date.now();
    if (now - prunedAt < PRUNE_EVERY_MS) return;
    prunedAt = now;
    pool.query(`DELETE FROM quota_charges WHERE created_at < now() - interval '${KEEP}'`).catch(() => undefined);
  };
  return {
    async charge(id, accountId, month, limit, wanted, keysRevision, day, at = new Date().toISOString()) {
      // Once created, no promise more per charge.
      if (!created) {
        await ensure();
        created = true;
      }
      prune();
      // Named: parsed and planned once per connection, then only bound and executed.
      const { rows } = await pool.query<{ o_granted: string; o_used: string; o_revision: string }>({
        name: 'charge_quota_with_events',
        text: 'SELECT o_granted, o_used, o_revision FROM charge_quota($1, $2, $3, $4, $5, $6::bigint, $7::text, $8::text)',
        values: [id, accountId, month, wanted, limit, keysRevision ?? null, day ?? null, at],
      });
      const row = rows[0]!;
      if (keysRevision === undefined) return { granted: Number(row.o_granted), used: Number(row.o_used) };
      if (row.o_revision === null) throw new Error('the keys revision is missing (migrations not applied)');
      return { granted: Number(row.o_granted), used: Number(row.o_used), keysRevision: Number(row.o_revision) };
    },
    async cancel(ids) {
      if (ids.length === 0) return;
      await ensure();
      await pool.query('SELECT cancel_quota_charges($1::text[])', [[...new Set(ids)]]);
    },
  };
}
