import { hashApiKey } from '../domain/keys';
import type { AccountStore } from './account-store';

type KeyLookup = Pick<AccountStore, 'findActiveKeyByHash'>;
type Found = Awaited<ReturnType<AccountStore['findActiveKeyByHash']>>;

/** The store's key lookup, plus a lookup by the exact text a caller presented (see createKeyCache). */
export interface KeyCache extends KeyLookup {
  /**
   * The active key whose exact text is `token` (found by its SHA-256), when this revision already
   * authenticated it; else undefined and the caller checks the token in full. Text never found
   * costs no store call (a malformed key keeps its 401 when the store is slow or down); text found
   * before is answered only after this turn's revision check, as every lookup.
   */
  knownToken(token: string): Promise<NonNullable<Found> | undefined> | undefined;
  /**
   * The active key whose exact text is `token` as of the last revision this cache read, without
   * reading it now, and that revision: the caller must not answer before a statement sent after
   * this call has found the revision unchanged (a charge that checks it, or `confirm`).
   */
  unconfirmedToken(token: string): { found: NonNullable<Found>; revision: number } | undefined;
  /** Reads the revision now (once per turn, shared with the lookups), and answers it. */
  confirm(): Promise<number>;
  /** A keys revision some statement read (a charge): a moved one empties the cache. */
  observe(revision: number): void;
}

/** More distinct keys than a server sees in one revision: past it the cache starts again. */
const MAX_CACHED_KEYS = 10_000;

/**
 * Active keys without a database round trip per request and without weakening "revoked at once":
 * the store's keys revision (bumped by any process on revocation, rotation or a plan change) is read
 * once per event-loop turn, before the first lookup of the turn, and a changed revision empties the
 * cache. A request that arrives after a revocation has committed is looked up in a later turn, so it
 * reads the new revision. Only found keys are kept: an unknown key always asks the store, so a flood
 * of made-up keys cannot fill the memory.
 *
 * Found keys are kept by the SHA-256 of their text, never by the text itself (no plaintext key is
 * held beyond its request, in memory either: a heap snapshot shows none). A known key is hashed but
 * not parsed again (base62, checksum: the larger cost). Only keys that passed every check (format,
 * checksum, environment) and were found active are kept, so a hit gives the answer the full check
 * would give; any other text (malformed, other environment, unknown, revoked) misses and is checked
 * in full.
 */
export function createKeyCache(store: KeyLookup & Pick<AccountStore, 'keysRevision'>): KeyCache {
  const byHash = new Map<string, NonNullable<Found>>();
  let revision: number | undefined;
  let checking: Promise<void> | undefined;

  const clear = () => byHash.clear();

  const checkRevision = (): Promise<void> => {
    checking ??= store.keysRevision().then(
      (current) => {
        if (current !== revision) clear();
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
    unconfirmedToken(token) {
      const found = revision === undefined ? undefined : byHash.get(hashApiKey(token));
      return found && { found, revision: revision! };
    },
    confirm: () => checkRevision().then(() => revision!),
    observe(current) {
      // Revisions only grow: an older one a slower statement read changes nothing.
      if (revision !== undefined && current <= revision) return;
      clear();
      revision = current;
    },
    knownToken(token) {
      const hash = hashApiKey(token);
      if (!byHash.has(hash)) return undefined;
      return checkRevision().then(() => byHash.get(hash));
    },
    async findActiveKeyByHash(hash) {
      await checkRevision();
      const hit = byHash.get(hash);
      if (hit) return hit;
      const seenRevision = revision;
      const found = await store.findActiveKeyByHash(hash);
      // A revision that moved during the lookup may have revoked what was read: do not keep it.
      if (found && seenRevision === revision) {
        if (byHash.size >= MAX_CACHED_KEYS) clear();
        byHash.set(hash, found);
      }
      return found;
    },
  };
}
