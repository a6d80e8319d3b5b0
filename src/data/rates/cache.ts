import { randomUUID } from 'node:crypto';
import type { Keyv } from 'keyv';
import type { Publication } from '../../domain/ecb';
import { LOCAL_LOCKS, type RatesLocks } from './locks';
import type { RedisFront } from './redis-front';
import type { RevisionChannel } from './revision-channel';

/** The sorted publication dates and every code ever quoted (EUR excluded): enough to serve at once. */
export interface CachedIndex {
  dates: string[];
  currencies: string[];
}

export interface CachedStatus {
  fetchedAt: string | null;
  lastError: string | null;
}

/** The HTTP validators of one ECB file, for a conditional GET. */
export interface Validator {
  etag?: string;
  lastModified?: string;
}

type Rates = Record<string, string>;

export interface RatesCacheOptions {
  /** Redis in front of the database for whole publications (REDIS_URL): a cache, never the truth. */
  front?: RedisFront | undefined;
  /** Cross-process locks of the database (advisory locks on PostgreSQL); none on SQLite. */
  locks?: RatesLocks | undefined;
  /** Announces new revisions to the other processes (LISTEN/NOTIFY on PostgreSQL); none on SQLite. */
  channel?: RevisionChannel | undefined;
}

/**
 * The rates history: one keyv namespace of the database (SQLite or PostgreSQL) holds a
 * publication per date (date → rates object), a second holds the meta keys below. It keeps every
 * publication ever loaded, so a restart serves at once without the network. `revision` changes on
 * every data write by any process (server or admin CLI); comparing it is how a process notices
 * data another one wrote. With Redis in front, publications are read from Redis first (a miss or
 * a failure reads the database and refills it); the meta keys always come from the database.
 */
/** Publications per setMany when storing: a year of ECB days, about 180 KB serialised. */
const WRITE_SLICE = 256;

export class RatesCache {
  private readonly publications: Keyv<Rates>;
  private readonly meta: Keyv;
  private readonly closeStores: () => Promise<void>;
  private readonly front: RedisFront | undefined;
  private readonly locks: RatesLocks;
  private readonly channel: RevisionChannel | undefined;

  constructor(
    publications: Keyv<Rates>,
    meta: Keyv,
    closeStores: () => Promise<void>,
    { front, locks = LOCAL_LOCKS, channel }: RatesCacheOptions = {},
  ) {
    this.publications = publications;
    this.meta = meta;
    this.closeStores = closeStores;
    this.front = front;
    this.locks = locks;
    this.channel = channel;
  }

  /** Calls `onChange` soon after another process writes (when the database can tell); returns the unsubscribe. */
  listen(onChange: () => void): () => void {
    return this.channel?.listen(onChange) ?? (() => undefined);
  }

  /** Publications of exactly these dates, in ONE database read (keyv getMany), after one Redis read if any; undefined where none. */
  async readPublications(dates: readonly string[]): Promise<(Publication | undefined)[]> {
    if (dates.length === 0) return [];
    const found: (Rates | undefined)[] = this.front ? await this.front.get(dates) : dates.map(() => undefined);
    const missing = dates.flatMap((date, i) => (found[i] === undefined ? [i] : []));
    if (missing.length > 0) {
      const stored = await this.publications.getMany(missing.map((i) => dates[i]!));
      const refill: Publication[] = [];
      missing.forEach((i, j) => {
        found[i] = stored[j];
        if (stored[j]) refill.push({ date: dates[i]!, rates: stored[j] });
      });
      if (this.front && refill.length > 0) await this.front.set(refill, false);
    }
    return dates.map((date, i) => {
      const rates = found[i];
      return rates ? Object.freeze({ date, rates: Object.freeze(rates) }) : undefined;
    });
  }

  /**
   * Runs `task` (an ECB fetch) unless another process on this database is fetching right now
   * (PostgreSQL advisory lock); that process's result then arrives through the revision.
   */
  tryFetch<T>(task: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> {
    return this.locks.tryFetch(task);
  }

  async readIndex(): Promise<CachedIndex | undefined> {
    return (await this.meta.get<CachedIndex>('index')) ?? undefined;
  }

  async readRevision(): Promise<string | undefined> {
    return (await this.meta.get<string>('revision')) ?? undefined;
  }

  /**
   * Stores publications (new or replacing) in the database, then in Redis if any (a failure is
   * only logged), then the index, then a new revision, in that order: whoever sees the new
   * revision finds everything it announces. The stored index is re-read just before it is
   * rewritten, so dates another process added meanwhile are kept; on PostgreSQL a lock makes that
   * read-modify-write exclusive (on SQLite two writers within the same few milliseconds could
   * still lose one's index entries).
   */
  writePublications(pubs: readonly Publication[]): Promise<{ index: CachedIndex; revision: string }> {
    return this.locks.write(() => this.writeUnlocked(pubs));
  }

  private async writeUnlocked(pubs: readonly Publication[]): Promise<{ index: CachedIndex; revision: string }> {
    // In slices: Keyv serialises every value of a setMany at once (the whole history is 7,000), and
    // that garbage was most of an import's peak RSS. Readers see none of them before the index below.
    for (let start = 0; start < pubs.length; start += WRITE_SLICE) {
      const slice = pubs.slice(start, start + WRITE_SLICE);
      await this.publications.setMany(slice.map((pub) => ({ key: pub.date, value: pub.rates })));
      await this.front?.set(slice, true);
    }
    const stored = await this.readIndex();
    const dates = new Set(stored?.dates);
    const currencies = new Set(stored?.currencies);
    for (const pub of pubs) {
      dates.add(pub.date);
      for (const code of Object.keys(pub.rates)) currencies.add(code);
    }
    const index = { dates: [...dates].sort(), currencies: [...currencies].sort() };
    await this.meta.set('index', index);
    const revision = randomUUID();
    await this.meta.set('revision', revision);
    // Best effort: a listener that misses it finds the revision at its next periodic check.
    await this.channel?.announce(revision).catch(() => undefined);
    return { index, revision };
  }

  /** fetchedAt and lastError are separate keys, so a process recording a failure never erases another's success. */
  async readStatus(): Promise<CachedStatus> {
    const [fetchedAt, lastError] = await this.meta.getMany<string | null>(['fetchedAt', 'lastError']);
    return { fetchedAt: fetchedAt ?? null, lastError: lastError ?? null };
  }

  async writeStatus(status: Partial<CachedStatus>): Promise<void> {
    await this.meta.setMany(Object.entries(status).map(([key, value]) => ({ key, value })));
    // The listeners' sync reads the status too: health's fetchedAt and lastError follow at once.
    await this.channel?.announce('status').catch(() => undefined);
  }

  async readValidators(): Promise<Record<string, Validator>> {
    return (await this.meta.get<Record<string, Validator>>('validators')) ?? {};
  }

  /** Only called once the data of that response is stored: a validator must never outlive a refused body. */
  async writeValidator(file: string, validator: Validator): Promise<void> {
    await this.meta.set('validators', { ...(await this.readValidators()), [file]: validator });
  }

  /** Empties both namespaces and the Redis copies (only this cache's keys: other prefixes on the same store stay). */
  async clear(): Promise<void> {
    await this.publications.clear();
    await this.meta.clear();
    await this.front?.clear();
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.front?.close()]);
    await this.closeStores();
  }
}
