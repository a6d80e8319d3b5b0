import type pg from 'pg';
import { NO_DEADLINE } from '../pg-client';

/** Locks shared by every process on one rates database. */
export interface RatesLocks {
  /**
   * Runs `task` holding the fetch lock; resolves `skipped` without running it when another process
   * holds it (that process's result arrives through the revision check).
   */
  tryFetch<T>(task: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }>;
  /** Runs `task` while no other process rewrites the index (read-modify-write of one row). */
  write<T>(task: () => Promise<T>): Promise<T>;
}

/** SQLite: one host, and SQLite serializes writers itself; the fetch runs without a lock. */
export const LOCAL_LOCKS: RatesLocks = {
  tryFetch: async (task) => ({ ran: true, value: await task() }),
  write: (task) => task(),
};

/** Advisory lock keys of the rates (any fixed numbers, distinct from the schema lock's). */
const FETCH_LOCK = 0x5261_7466;
const WRITE_LOCK = 0x5261_7477;

/**
 * Session-level advisory locks on a dedicated client (a pooled query could run on another
 * connection than the one that holds the lock). If the unlock fails, the client is destroyed,
 * which ends its session and so frees the lock: a crashed holder never blocks the others.
 */
export function pgLocks(pool: pg.Pool): RatesLocks {
  const holding = async <T>(key: number, wait: boolean, task: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> => {
    const client = await pool.connect();
    let locked: boolean;
    try {
      // Waiting for another process's write is not a stall: no deadline on this one.
      if (wait)
        locked = (await client.query({ text: 'SELECT pg_advisory_lock($1)', values: [key], [NO_DEADLINE]: true } as pg.QueryConfig), true);
      else locked = (await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [key])).rows[0]?.locked === true;
    } catch (error) {
      client.release(error as Error);
      throw error;
    }
    if (!locked) {
      client.release();
      return { ran: false };
    }
    try {
      return { ran: true, value: await task() };
    } finally {
      try {
        await client.query('SELECT pg_advisory_unlock($1)', [key]);
        client.release();
      } catch (error) {
        client.release(error as Error);
      }
    }
  };
  return {
    tryFetch: (task) => holding(FETCH_LOCK, false, task),
    write: async (task) => {
      const result = await holding(WRITE_LOCK, true, task);
      if (!result.ran) throw new Error('unreachable: a waiting lock always runs its task');
      return result.value;
    },
  };
}
