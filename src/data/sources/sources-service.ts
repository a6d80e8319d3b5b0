import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { sourceInfo } from '../../domain/sources/catalog';
import { publicationChanges } from '../../domain/sources/changes';
import { SourceHistory } from '../../domain/sources/history';
import { zonedDate } from '../../domain/sources/schedule';
import { FeedFormatError, type ParsedFeed, type SourceId, type SourcePublication } from '../../domain/sources/types';
import type { FeedSourceId, SourceImportReport, SourceRatesService, SourceStatus } from '../../services/currency/source-rates';
import { SourceFileError } from './errors';
import { getFeed } from './feed-client';
import { feedUrls } from './feed-urls';
import { nextFetchDelayMs } from './fetch-plan';
import { sourceStatus } from './source-status';
import { SourceLoop } from './source-loop';
import type { SourceStore, StoredSourceStatus } from './source-store';
import type { SourcesTuning } from './tuning';

export interface SourcesServiceParts {
  store: SourceStore;
  enabled: readonly FeedSourceId[];
  baseUrls: Readonly<Record<FeedSourceId, string>>;
  parse: (source: FeedSourceId, body: Uint8Array) => ParsedFeed;
  fetch: typeof fetch;
  clock: () => Date;
  random: () => number;
  tuning: SourcesTuning;
  logger: Logger;
}

const NO_STATUS: StoredSourceStatus = Object.freeze({ fetchedAt: null, lastError: null });

/**
 * The sources other than the ECB: their publications loaded from the database at start (a
 * restart serves without the network), each fetched on its own loop, imports from files, and the
 * status health reports. The history is one immutable SourceHistory, replaced whole on a change.
 */
export class SourcesService implements SourceRatesService {
  readonly fetched: readonly FeedSourceId[];
  private readonly served: readonly SourceId[];
  private readonly parts: SourcesServiceParts;
  private held: SourceHistory = SourceHistory.EMPTY;
  private readonly revisions = new Map<FeedSourceId, string | undefined>();
  private readonly statuses = new Map<FeedSourceId, StoredSourceStatus>();
  private readonly loops = new Map<FeedSourceId, SourceLoop>();
  private readonly running = new Map<FeedSourceId, Promise<void>>();
  /** Writes of one source, one after another (an import and a fetch never interleave their read and write). */
  private readonly writes = new Map<FeedSourceId, Promise<unknown>>();
  private readonly listeners = new Set<() => void>();
  private readonly abort = new AbortController();
  /** This process's name in the fetch leases of the store. */
  private readonly owner = randomUUID();
  private syncTimer: NodeJS.Timeout | undefined;
  private unlisten: () => void = () => undefined;

  constructor(parts: SourcesServiceParts) {
    this.parts = parts;
    this.fetched = parts.enabled;
    this.served = Object.freeze(['ecb', ...parts.enabled] as const);
  }

  enabled(): readonly SourceId[] {
    return this.served;
  }

  history(): SourceHistory {
    return this.held;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  status(source: FeedSourceId): SourceStatus {
    return sourceStatus(source, this.held, this.statuses.get(source) ?? NO_STATUS, this.parts.clock());
  }

  async start(): Promise<void> {
    await this.sync(true).catch((error: unknown) => {
      throw new Error(`cannot read the sources' rates: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    });
    const { clock, random, tuning, logger } = this.parts;
    for (const source of this.fetched) {
      const loop = new SourceLoop({
        refresh: () => this.refresh(source),
        delayAfter: (failed) => nextFetchDelayMs(source, this.held, clock(), random, tuning, failed),
      });
      this.loops.set(source, loop);
      loop.start();
    }
    this.unlisten = this.parts.store.listen(() => void this.sync(false).catch(() => undefined));
    this.syncTimer = setInterval(() => {
      this.sync(false).catch((error: unknown) => logger.debug({ err: error }, 'sources database check failed'));
    }, tuning.syncIntervalMs);
    this.syncTimer.unref();
  }

  async stop(): Promise<void> {
    for (const loop of this.loops.values()) loop.stop();
    clearInterval(this.syncTimer);
    this.unlisten();
    this.abort.abort();
    await Promise.allSettled([...this.running.values(), ...this.writes.values()]);
    await Promise.allSettled(this.fetched.map((source) => this.parts.store.releaseFetch(source, this.owner)));
    await this.parts.store.close();
  }

  async importFile(source: FeedSourceId, file: string): Promise<SourceImportReport> {
    let parsed: ParsedFeed;
    try {
      parsed = this.parsed(source, await readFile(file));
    } catch (error) {
      throw SourceFileError.from(file, error);
    }
    const counts = await this.apply(source, parsed.publications);
    await this.saveStatus(source, { fetchedAt: this.parts.clock().toISOString() });
    return { source, file, ...counts, skipped: parsed.skipped, newest: this.held.latest(source) ?? null };
  }

  /** One fetch of a source at a time: a second caller shares the running one. */
  refresh(source: FeedSourceId): Promise<void> {
    let running = this.running.get(source);
    if (!running) {
      running = this.runRefresh(source).finally(() => this.running.delete(source));
      this.running.set(source, running);
    }
    return running;
  }

  private async runRefresh(source: FeedSourceId): Promise<void> {
    const { baseUrls, clock, logger, tuning, fetch, random } = this.parts;
    const client = { ...tuning, fetch, random, signal: this.abort.signal };
    const today = zonedDate(clock(), sourceInfo(source).tables[0]!.schedule.timeZone);
    const publications: SourcePublication[] = [];
    try {
      if (!(await this.parts.store.claimFetch(source, this.owner, clock(), tuning.leaseMs))) {
        logger.debug({ source }, `${source}: another instance is fetching; its result arrives through the revision`);
        return;
      }
      for (const url of feedUrls(source, baseUrls[source], today)) {
        const parsed = this.parsed(source, await getFeed(url, client));
        if (parsed.skipped.length > 0) logger.info({ source, url, skipped: parsed.skipped.length }, `${source}: rows skipped`);
        publications.push(...parsed.publications);
      }
      const counts = await this.apply(source, publications);
      if (counts.added + counts.replaced > 0) logger.info({ source, ...counts }, `${source} rates refreshed`);
      await this.saveStatus(source, { fetchedAt: clock().toISOString(), lastError: null });
    } catch (error) {
      if (this.abort.signal.aborted) return;
      const message = error instanceof Error ? error.message : String(error);
      const newest = this.held.latest(source);
      const serving = newest ? `serving what is held, newest ${newest}` : 'none held yet';
      logger.warn({ source, error: message }, `${source} rates refresh failed: ${message} (${serving})`);
      await this.saveStatus(source, { lastError: { message, unparsable: error instanceof FeedFormatError } });
      throw error;
    }
  }

  /** The parser's reading of one body, checked to be of `source` (a FeedFormatError otherwise). */
  private parsed(source: FeedSourceId, body: Uint8Array): ParsedFeed {
    const parsed = this.parts.parse(source, body);
    const foreign = parsed.publications.find((pub) => pub.source !== source);
    if (foreign) throw new FeedFormatError(source, 1, `the parser returned a publication of ${foreign.source}`);
    return parsed;
  }

  /** Stores what changes (new and corrected days) in one atomic write, then swaps the history. */
  private apply(
    source: FeedSourceId,
    pubs: readonly SourcePublication[],
  ): Promise<{ publications: number; added: number; replaced: number }> {
    const run = (this.writes.get(source) ?? Promise.resolve())
      .catch(() => undefined)
      .then(async () => {
        const stored = await this.parts.store.readPublications(source);
        const changes = publicationChanges(stored, pubs);
        if (changes.changed.length > 0) this.revisions.set(source, await this.parts.store.write(source, changes.changed));
        this.swap(publicationChanges([], [...stored, ...changes.changed]).changed);
        return { publications: pubs.length, added: changes.added, replaced: changes.replaced };
      });
    this.writes.set(source, run);
    return run;
  }

  /** Merges publications into the held history; listeners hear of it when anything changed. */
  private swap(pubs: readonly SourcePublication[]): void {
    const next = this.held.merge(pubs);
    if (next === this.held) return;
    this.held = next;
    for (const listener of this.listeners) listener();
  }

  /** Reloads the sources whose revision moved (all of them when forced), and every stored status. */
  private async sync(force: boolean): Promise<void> {
    const { store } = this.parts;
    const { revisions, statuses } = await store.readState(this.fetched);
    for (const [i, source] of this.fetched.entries()) {
      if (!force && this.revisions.get(source) === revisions[i]) continue;
      this.swap(await store.readPublications(source));
      this.revisions.set(source, revisions[i]);
    }
    for (const [i, source] of this.fetched.entries()) this.statuses.set(source, statuses[i]!);
  }

  private async saveStatus(source: FeedSourceId, status: Partial<StoredSourceStatus>): Promise<void> {
    this.statuses.set(source, { ...(this.statuses.get(source) ?? NO_STATUS), ...status });
    await this.parts.store
      .writeStatus(source, status)
      .catch((error: unknown) => this.parts.logger.warn({ err: error }, 'could not store the source status'));
  }
}
