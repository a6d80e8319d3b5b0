import type { AccountStore } from './account-store';

type KeyLookup = Pick<AccountStore, 'findActiveKeyByHash'>;
type Found = Awaited<ReturnType<AccountStore['findActiveKeyByHash']>>;

/** More distinct keys than a server sees in one revision: past it the cache starts again. */
const MAX_CACHED_KEYS = 10_000;

/**
 * Active keys by hash, without a database round trip per request and without weakening "revoked at
 * once": the store's keys revision (bumped by any process on revocation, rotation or a plan change)
 * is read once per event-loop turn, before the first lookup of the turn, and a changed revision
 * empties the cache. A request that arrives after a revocation has committed is looked up in a
 * later turn, so it reads the new revision. Only found keys are kept: an unknown key always asks
 * the store, so a flood of made-up keys cannot fill the memory.
 */
export function createKeyCache(store: KeyLookup & Pick<AccountStore, 'keysRevision'>): KeyLookup {
  const cached = new Map<string, NonNullable<Found>>();
  let revision: number | undefined;
  let checking: Promise<void> | undefined;

  const checkRevision = (): Promise<void> => {
    checking ??= store.keysRevision().then(
      (current) => {
        if (current !== revision) cached.clear();
        revision = current;
        setImmediate(() => (checking = undefined));
      },
      (error: unknown) => {
        checking = undefined;
        throw error;
      },
    );
    return checking;
  };

  return {
    async findActiveKeyByHash(hash) {
      await checkRevision();
      const hit = cached.get(hash);
      if (hit) return hit;
      const seenRevision = revision;
      const found = await store.findActiveKeyByHash(hash);
      // A revision that moved during the lookup may have revoked what was read: do not keep it.
      if (found && seenRevision === revision) {
        if (cached.size >= MAX_CACHED_KEYS) cached.clear();
        cached.set(hash, found);
      }
      return found;
    },
  };
}
