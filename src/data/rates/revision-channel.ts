import type pg from 'pg';

/** Tells the other processes on one database that the rates revision moved, faster than their periodic check. */
export interface RevisionChannel {
  /** After a write (of publications: the new revision; of the status: any word): wakes the listeners (best effort: the periodic check is the guarantee). */
  announce(what: string): Promise<void>;
  /** Calls `onChange` on every announcement (and after each reconnect); returns the unsubscribe. */
  listen(onChange: () => void): () => void;
}

const CHANNEL = 'rates_revision';
/** The first reconnection waits this long, doubled on each failure up to MAX_RECONNECT_MS. */
const RECONNECT_MS = 250;
const MAX_RECONNECT_MS = 4_000;

/**
 * PostgreSQL LISTEN/NOTIFY on one connection held from the pool. A lost connection (its 'error' is
 * always handled: a broken LISTEN client never ends the process) is replaced with a backoff, and
 * `onChange` runs once more after each reconnection, for an announcement missed meanwhile; while
 * none is held, the periodic revision check alone keeps the instances in step.
 */
export function pgRevisionChannel(pool: pg.Pool): RevisionChannel {
  return pgNotifyChannel(pool, CHANNEL);
}

/** LISTEN/NOTIFY on `channel`, as pgRevisionChannel describes (the webhook outbox listens on one of its own). */
export function pgNotifyChannel(pool: pg.Pool, channel: string): RevisionChannel {
  return {
    async announce(what) {
      await pool.query('SELECT pg_notify($1, $2)', [channel, what]);
    },
    listen(onChange) {
      let stopped = false;
      let held: pg.PoolClient | undefined;
      let timer: NodeJS.Timeout | undefined;
      let wait = RECONNECT_MS;
      const retry = () => {
        if (stopped) return;
        timer = setTimeout(() => void connect(), wait);
        timer.unref();
        wait = Math.min(MAX_RECONNECT_MS, wait * 2);
      };
      const drop = (client: pg.PoolClient, error?: Error) => {
        if (held !== client) return;
        held = undefined;
        client.release(error ?? true);
        retry();
      };
      const connect = async () => {
        let client: pg.PoolClient;
        try {
          client = await pool.connect();
        } catch {
          retry();
          return;
        }
        if (stopped) return client.release();
        held = client;
        client.on('notification', () => onChange());
        client.on('error', (error) => drop(client, error));
        try {
          await client.query(`LISTEN ${channel}`);
          wait = RECONNECT_MS;
          onChange();
        } catch (error) {
          drop(client, error as Error);
        }
      };
      void connect();
      return () => {
        stopped = true;
        clearTimeout(timer);
        if (held) drop(held);
      };
    },
  };
}
