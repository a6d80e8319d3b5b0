import type pg from 'pg';
import { pgNotifyChannel } from './rates/revision-channel';

/** The PostgreSQL channel a trigger on `webhook_deliveries` notifies at the commit of every insert (migration 6). */
export const OUTBOX_CHANNEL = 'webhook_outbox';

/**
 * Wakes the outbox's dispatchers when deliveries may have been added. `announce` is called by this
 * process's writes (the dispatcher of this process wakes without a round trip); on PostgreSQL the
 * listeners are also woken by every process's inserts, through LISTEN on a connection of their own
 * (reconnected when it drops, with one wake-up after each reconnection for what was missed).
 */
export interface OutboxWakeups {
  announce(): void;
  /** Calls `onWrite` on each wake-up; returns the unsubscribe. */
  listen(onWrite: () => void): () => void;
  /** Ends the listening (before the pool closes). */
  close(): void;
}

/** The wake-ups of this process's writes only (SQLite: one instance per file; the CLI writes no event). */
export function inProcessWakeups(): OutboxWakeups {
  const listeners = new Set<() => void>();
  return {
    announce() {
      for (const listener of [...listeners]) listener();
    },
    listen(onWrite) {
      listeners.add(onWrite);
      return () => void listeners.delete(onWrite);
    },
    close() {
      listeners.clear();
    },
  };
}

/** This process's writes and, through LISTEN on one pooled connection held while anyone listens, every process's. */
export function postgresWakeups(pool: pg.Pool): OutboxWakeups {
  const local = inProcessWakeups();
  const channel = pgNotifyChannel(pool, OUTBOX_CHANNEL);
  let unlisten: (() => void) | undefined;
  let watchers = 0;
  return {
    announce: local.announce,
    listen(onWrite) {
      const unsubscribe = local.listen(onWrite);
      watchers += 1;
      unlisten ??= channel.listen(local.announce);
      let done = false;
      return () => {
        if (done) return;
        done = true;
        unsubscribe();
        watchers -= 1;
        if (watchers === 0) {
          unlisten?.();
          unlisten = undefined;
        }
      };
    },
    close() {
      unlisten?.();
      unlisten = undefined;
      local.close();
    },
  };
}
