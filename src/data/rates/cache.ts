import { randomUUID } from 'node:crypto';
import type { Keyv } from 'keyv';
import type { Publication } from '../../domain/ecb';

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

/**
 * The rates cache: one keyv namespace holds a publication per date (date → rates object), a
 * second holds the meta keys below. It keeps every publication ever loaded, so a restart serves
 * at once without the network. `revision` changes on every data write by any process (server or
 * admin CLI); comparing it is how a process notices data another one wrote.
 */
/** Publications per setMany when storing: a year of ECB days, about 180 KB serialised. */
const WRITE_SLICE = 256;

export class RatesCache {
  private readonly publications: Keyv<Rates>;
  private readonly meta: Keyv;
  private readonly closeStores: () => Promise<void>;

  constructor(publications: Keyv<Rates>, meta: Keyv, closeStores: () => Promise<void>) {
    this.publications = publications;
    this.meta = meta;
    this.closeStores = closeStores;
  }

  /** Publications of exactly these dates, in ONE store read (keyv getMany); undefined where none. */
  async readPublications(dates: readonly string[]): Promise<(Publication | undefined)[]> {
    if (dates.length === 0) return [];
    const found = await this.publications.getMany([...dates]);
    return dates.map((date, i) => {
      const rates = found[i];
      return rates ? Object.freeze({ date, rates: Object.freeze(rates) }) : undefined;
    });
  }

  async readIndex(): Promise<CachedIndex | undefined> {
    return (await this.meta.get<CachedIndex>('index')) ?? undefined;
  }

  async readRevision(): Promise<string | undefined> {
    return (await this.meta.get<string>('revision')) ?? undefined;
  }

  /**
   * Stores publications (new or replacing), then the index, then a new revision, in that order:
   * whoever sees the new revision finds everything it announces. The stored index is re-read
   * just before it is rewritten, so dates another process added meanwhile are kept; only two
   * writers within the same few milliseconds could still lose one's index entries.
   */
  async writePublications(pubs: readonly Publication[]): Promise<{ index: CachedIndex; revision: string }> {
    // In slices: Keyv serialises every value of a setMany at once (the whole history is 7,000), and
    // that garbage was most of an import's peak RSS. Readers see none of them before the index below.
    for (let start = 0; start < pubs.length; start += WRITE_SLICE) {
      await this.publications.setMany(pubs.slice(start, start + WRITE_SLICE).map((pub) => ({ key: pub.date, value: pub.rates })));
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
    return { index, revision };
  }

  /** fetchedAt and lastError are separate keys, so a process recording a failure never erases another's success. */
  async readStatus(): Promise<CachedStatus> {
    const [fetchedAt, lastError] = await this.meta.getMany<string | null>(['fetchedAt', 'lastError']);
    return { fetchedAt: fetchedAt ?? null, lastError: lastError ?? null };
  }

  async writeStatus(status: Partial<CachedStatus>): Promise<void> {
    await this.meta.setMany(Object.entries(status).map(([key, value]) => ({ key, value })));
  }

  async readValidators(): Promise<Record<string, Validator>> {
    return (await this.meta.get<Record<string, Validator>>('validators')) ?? {};
  }

  /** Only called once the data of that response is stored: a validator must never outlive a refused body. */
  async writeValidator(file: string, validator: Validator): Promise<void> {
    await this.meta.set('validators', { ...(await this.readValidators()), [file]: validator });
  }

  /** Empties both namespaces (only this cache's keys: other prefixes on the same store stay). */
  async clear(): Promise<void> {
    await this.publications.clear();
    await this.meta.clear();
  }

  close(): Promise<void> {
    return this.closeStores();
  }
}
