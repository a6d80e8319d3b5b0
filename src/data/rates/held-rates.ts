import type { Publication } from '../../domain/ecb';
import type { Progress } from '../../services/currency/rates';
import { berlinDate } from '../../domain/calendar/berlin-time';
import type { RatesCache } from './cache';
import { EMPTY_SNAPSHOT, loadSnapshot, resolveDate, snapshotOf, type RatesSnapshot } from './snapshot';
import { changesOf, RatesSourceError, updateProblems, type UpdateCounts } from './update';

/**
 * The rates this process holds: the memory snapshot and the cache behind it, kept coherent. All
 * writes and reloads run one at a time, in order, so a reload never overwrites a newer write.
 */
export class HeldRates {
  private readonly cache: RatesCache;
  private readonly clock: () => Date;
  private current: RatesSnapshot = EMPTY_SNAPSHOT;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly listeners = new Set<() => void>();

  constructor(cache: RatesCache, clock: () => Date) {
    this.cache = cache;
    this.clock = clock;
  }

  get snapshot(): RatesSnapshot {
    return this.current;
  }

  /** Calls `listener` after every swap of the snapshot; returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  newest(): string | undefined {
    return this.current.dates.at(-1);
  }

  /** The latest held date on or before `date`. */
  resolve(date: string): string | undefined {
    return resolveDate(this.current.dates, date);
  }

  holds(date: string): boolean {
    return this.resolve(date) === date;
  }

  /** Whole publications in one cache read, duplicates asked for once. */
  async loadPublications(dates: readonly string[]): Promise<(Publication | undefined)[]> {
    const unique = [...new Set(dates)];
    const found = await this.cache.readPublications(unique);
    const byDate = new Map(unique.map((date, i) => [date, found[i]]));
    return dates.map((date) => byDate.get(date));
  }

  /**
   * Reloads the snapshot when the cache revision moved, i.e. another process (the admin CLI, another
   * instance on Redis) wrote; otherwise costs one small read. Resolves true when it reloaded.
   */
  reload(force = false): Promise<boolean> {
    return this.exclusive(() => this.reloadNow(force));
  }

  /** Validates `incoming` against what is held, then stores what changed and swaps the snapshot. */
  apply(incoming: readonly Publication[], source: string, daily: boolean, progress: Progress): Promise<UpdateCounts> {
    return this.exclusive(async () => {
      await this.reloadNow(false);
      const problems = updateProblems(this.current, incoming, daily, berlinDate(this.clock()));
      if (problems.length > 0) throw new RatesSourceError(`${source} refused: ${problems.join('; ')}`);
      const { changed, added, replaced } = await changesOf(this.cache, this.current, incoming);
      if (changed.length > 0) {
        progress(`storing ${changed.length} publications (${added} new, ${replaced} replaced)`);
        const { index, revision } = await this.cache.writePublications(changed);
        const newest = index.dates.at(-1)!;
        const latest =
          changed.find((pub) => pub.date === newest) ??
          (newest === this.current.latest?.date ? this.current.latest : (await this.cache.readPublications([newest]))[0]);
        this.swap(snapshotOf(index, latest, revision));
      }
      return { publications: incoming.length, added, replaced };
    });
  }

  /** Resolves once every queued write and reload has finished. */
  async settled(): Promise<void> {
    await this.queue;
  }

  private async reloadNow(force: boolean): Promise<boolean> {
    const revision = await this.cache.readRevision();
    if (!force && revision === this.current.revision) return false;
    this.swap(await loadSnapshot(this.cache, revision));
    return true;
  }

  /** A listener's fault is its own: the rates it was told about are held all the same. */
  private swap(next: RatesSnapshot): void {
    this.current = next;
    for (const listener of this.listeners) {
      try {
        listener();
      } catch {
        // nothing to undo
      }
    }
  }

  private exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
