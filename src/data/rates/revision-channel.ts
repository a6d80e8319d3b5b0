import type pg from 'pg';

/** Tells the other processes on one database that the rates revision moved, faster than their periodic check. */
export interface RevisionChannel {
  /** After a write (of publications: the new revision; of the status: any word): wakes the listeners (best effort: the periodic check is the guarantee). */
  announce(what: string): Promise<void>;
  /** Calls `onChange` on every announcement (and after each reconnect); returns the unsubscribe. */
  listen(onChange: () => void): () => void;
}

const CHANNEL = 'rates_revision';
const RECONNECT_MS = 1_000;

/**
 * PostgreSQL LISTEN/NOTIFY on one connection held from the pool. A lost connection is replaced
 * after a second, and `onChange` runs once more then, for an announcement missed meanwhile; while
 * none is held, the periodic revision check alone keeps the instances in step.
 */
export function pgRevisionChannel(pool: pg.Pool): RevisionChannel {
  return {
    async announce(what) {
      await pool.query('SELECT pg_notify($1, $2)', [CHANNEL, what]);
    },
    listen(onChange) {
      let stopped = false;
      let held: pg.PoolClient | undefined;
      let timer: NodeJS.Timeout | undefined;
      const drop = (client: pg.PoolClient, error?: Error) => {
        if (held !== client) return;
        held = undefined;
        client.release(error ?? true);
        if (!stopped) {
          timer = setTimeout(() => void connect(), RECONNECT_MS);
          timer.unref();
        }
      };
      const connect = async () => {
        let client: pg.PoolClient;
        try {
          client = await pool.connect();
        } catch {
          if (!stopped) timer = setTimeout(() => void connect(), RECONNECT_MS).unref();
          return;
        }
        if (stopped) return client.release();
        held = client;
        client.on('notification', () => onChange());
        client.on('error', (error) => drop(client, error));
        try {
          await client.query(`LISTEN ${CHANNEL}`);
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
