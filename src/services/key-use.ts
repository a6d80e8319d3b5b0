import type { AccountStore } from './account-store';

/** A key's last use is written at most this often per key (per instance). */
export const KEY_USE_RESOLUTION_MS = 5 * 60 * 1000;

export interface KeyUseRecorder {
  /** Notes that a key was used now: a Map lookup on the request path, never a database write. */
  note(keyId: string): void;
  /** Writes what is pending now (tests, shutdown). */
  flush(): Promise<void>;
}

/**
 * "Last used" for the account page without a write per keyed request: a key is noted in memory
 * at most once per KEY_USE_RESOLUTION_MS, and the notes are written in one batch on a later turn of
 * the event loop (setImmediate), off the request path. The page states the granularity.
 */
export function createKeyUseRecorder(store: AccountStore, clock: () => Date, onError: (error: unknown) => void): KeyUseRecorder {
  const lastNoted = new Map<string, number>();
  let pending = new Set<string>();
  let scheduled = false;

  const flush = async () => {
    scheduled = false;
    if (pending.size === 0) return;
    const ids = [...pending];
    pending = new Set();
    try {
      await store.recordKeyUse(ids, clock().toISOString());
    } catch (error) {
      onError(error);
    }
  };

  return {
    note(keyId) {
      const now = clock().getTime();
      const last = lastNoted.get(keyId);
      if (last !== undefined && now - last < KEY_USE_RESOLUTION_MS) return;
      // Bounded: an instance sees a limited set of keys, but drop stale notes rather than grow forever.
      if (lastNoted.size > 100_000) lastNoted.clear();
      lastNoted.set(keyId, now);
      pending.add(keyId);
      if (!scheduled) {
        scheduled = true;
        setImmediate(() => void flush());
      }
    },
    flush,
  };
}
