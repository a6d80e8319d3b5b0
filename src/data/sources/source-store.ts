import { randomUUID } from 'node:crypto';
import type { Keyv } from 'keyv';
import type { SourcePublication } from '../../domain/sources/types';
import type { FeedSourceId } from '../../services/currency/source-rates';
import { LOCAL_LOCKS, type RatesLocks } from '../rates/locks';
import type { RevisionChannel } from '../rates/revision-channel';

/** The outcome of a source's latest fetch, as every process stored it. */
export interface StoredSourceStatus {
  fetchedAt: string | null;
  /** `unparsable`: the publisher's response no longer read as its format (the source is stale until it does). */
  lastError: { message: string; unparsable: boolean } | null;
}

const pubKey = (source: FeedSourceId, pub: Pick<SourcePublication, 'table' | 'date'>) => `pub:${source}:${pub.table}:${pub.date}`;

/**
 * The publications of the sources other than the ECB, in the rates database (the keyv table of
 * `DATA_DIR/rates.db`, or `rates_keyv` on PostgreSQL) under one namespace of its own: per source
 * its publications (`pub:<source>:<table>:<date>`), the list of their keys, a revision, and the
 * status of its latest fetch. A write of a source is ONE keyv setMany (one SQLite transaction, one
 * PostgreSQL statement) holding its publications, its new key list and its new revision: a reader
 * sees all of a write or none of it, and a failed write leaves nothing behind.
 */
export class SourceStore {
  private readonly keyv: Keyv;
  private readonly closeStores: () => Promise<void>;
  private readonly locks: RatesLocks;
  private readonly channel: RevisionChannel | undefined;

  constructor(keyv: Keyv, closeStores: () => Promise<void>, options: { locks?: RatesLocks; channel?: RevisionChannel } = {}) {
    this.keyv = keyv;
    this.closeStores = closeStores;
    this.locks = options.locks ?? LOCAL_LOCKS;
    this.channel = options.channel;
  }

  /** Calls `onChange` soon after another process writes (PostgreSQL NOTIFY); returns the unsubscribe. */
  listen(onChange: () => void): () => void {
    return this.channel?.listen(onChange) ?? (() => undefined);
  }

  /** The revision of each source (undefined where nothing was ever stored), in one read. */
  async readRevisions(sources: readonly FeedSourceId[]): Promise<(string | undefined)[]> {
    if (sources.length === 0) return [];
    return (await this.keyv.getMany<string>(sources.map((s) => `revision:${s}`))).map((r) => r ?? undefined);
  }

  /** Every publication stored of `source`. */
  async readPublications(source: FeedSourceId): Promise<SourcePublication[]> {
    const keys = (await this.keyv.get<string[]>(`index:${source}`)) ?? [];
    if (keys.length === 0) return [];
    const found = await this.keyv.getMany<SourcePublication>(keys);
    return found.filter((pub): pub is SourcePublication => pub !== undefined && pub !== null);
  }

  /**
   * Stores publications of one source (new days, or corrections replacing a stored day) with the
   * source's key list and a new revision, atomically; the key list is re-read under the write lock
   * (PostgreSQL advisory lock), so another process's days are never dropped. Returns the revision.
   */
  write(source: FeedSourceId, pubs: readonly SourcePublication[]): Promise<string> {
    return this.locks.write(async () => {
      const keys = new Set((await this.keyv.get<string[]>(`index:${source}`)) ?? []);
      for (const pub of pubs) keys.add(pubKey(source, pub));
      const revision = randomUUID();
      await this.keyv.setMany([
        ...pubs.map((pub) => ({ key: pubKey(source, pub), value: pub })),
        { key: `index:${source}`, value: [...keys].sort() },
        { key: `revision:${source}`, value: revision },
      ]);
      await this.channel?.announce(`sources:${source}`).catch(() => undefined);
      return revision;
    });
  }

  /** fetchedAt and lastError are separate keys: a process recording a failure never erases another's success time. */
  async readStatuses(sources: readonly FeedSourceId[]): Promise<StoredSourceStatus[]> {
    return (await this.readState(sources)).statuses;
  }

  /** Each source's revision and status in ONE read: what the periodic check of a running server costs. */
  async readState(sources: readonly FeedSourceId[]): Promise<{ revisions: (string | undefined)[]; statuses: StoredSourceStatus[] }> {
    if (sources.length === 0) return { revisions: [], statuses: [] };
    const values = await this.keyv.getMany(sources.flatMap((s) => [`revision:${s}`, `fetchedAt:${s}`, `lastError:${s}`]));
    return {
      revisions: sources.map((_, i) => (values[3 * i] as string | undefined) ?? undefined),
      statuses: sources.map((_, i) => ({
        fetchedAt: (values[3 * i + 1] as string | undefined) ?? null,
        lastError: (values[3 * i + 2] as StoredSourceStatus['lastError'] | undefined) ?? null,
      })),
    };
  }

  async writeStatus(source: FeedSourceId, status: Partial<StoredSourceStatus>): Promise<void> {
    await this.keyv.setMany(Object.entries(status).map(([key, value]) => ({ key: `${key}:${source}`, value })));
    await this.channel?.announce(`sources:${source}`).catch(() => undefined);
  }

  /**
   * Takes the fetch of `source` for `ttlMs` unless another process took it and its lease still
   * runs: instances on one database then fetch a publisher once between them, and the others
   * take the result through the revision. Best effort (a read, then a write): two processes that
   * claim within the same moment both fetch, which costs a request and changes nothing stored.
   */
  async claimFetch(source: FeedSourceId, owner: string, now: Date, ttlMs: number): Promise<boolean> {
    const lease = await this.keyv.get<{ owner: string; until: number }>(`fetching:${source}`);
    if (lease && lease.owner !== owner && lease.until > now.getTime()) return false;
    await this.keyv.set(`fetching:${source}`, { owner, until: now.getTime() + ttlMs });
    return true;
  }

  /** Ends `owner`'s lease of `source`, if it holds it (a clean stop: a restarted instance fetches at once). */
  async releaseFetch(source: FeedSourceId, owner: string): Promise<void> {
    const lease = await this.keyv.get<{ owner: string; until: number }>(`fetching:${source}`);
    if (lease?.owner === owner) await this.keyv.delete(`fetching:${source}`);
  }

  /** Empties this store's namespace only (the ECB's keys on the same table stay). */
  async clear(): Promise<void> {
    await this.keyv.clear();
  }

  async close(): Promise<void> {
    await this.closeStores();
  }
}
