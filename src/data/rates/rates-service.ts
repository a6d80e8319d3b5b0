import path from 'node:path';
import { counted } from '../../domain/counted';
import type { Logger } from 'pino';
import type { Publication } from '../../domain/ecb';
import type { ImportReport, Progress, RatesService, RatesStatus } from '../../services/currency/rates';
import { berlinDate } from '../../domain/calendar/berlin-time';
import { ApiError } from '../../domain/errors';
import type { CachedStatus, RatesCache } from './cache';
import type { EcbClient } from './ecb-client';
import { HeldRates } from './held-rates';
import { refreshFromEcb } from './refresh';
import { memoizedLatestMaxAge, memoizedPublicationLag, type PublicationLag } from '../../domain/calendar/ecb-schedule';
import { RefreshScheduler } from './scheduler';
import type { RatesTuning } from './tuning';
import { parseSource, RatesFileError, RatesSourceError, readSource } from './update';

export interface RatesServiceParts {
  cache: RatesCache;
  client: EcbClient;
  logger: Logger;
  clock: () => Date;
  random: () => number;
  tuning: RatesTuning;
  /** A local ECB file to import at start (RATES_FILE). */
  ratesFile: string | undefined;
  /** Aborted by stop(): cancels requests and retry pauses in flight. */
  abort: AbortController;
  /** Told of every refresh that failed after its retries. */
  onFetchFailure?: (() => void) | undefined;
}

const quiet: Progress = () => undefined;

/** What a client is told to wait when the rates database cannot be read. */
const DATABASE_RETRY_AFTER_SECONDS = 5;

/** The ECB rates component: lifecycle, imports, refreshes and status around the held rates. */
export class EcbRatesService implements RatesService {
  private readonly parts: RatesServiceParts;
  private readonly held: HeldRates;
  private readonly scheduler: RefreshScheduler;
  private fetchedAt: string | null = null;
  private lastError: string | null = null;
  private refreshing: Promise<ImportReport> | undefined;
  private syncTimer: NodeJS.Timeout | undefined;
  private unlisten: () => void = () => undefined;
  private readonly maxAge: (newest: string | undefined, now: Date) => number;
  private readonly lag: (newest: string, now: Date) => PublicationLag;

  constructor(parts: RatesServiceParts) {
    this.parts = parts;
    this.held = new HeldRates(parts.cache, parts.clock);
    this.maxAge = memoizedLatestMaxAge(parts.tuning.schedule);
    this.lag = memoizedPublicationLag(parts.tuning.schedule);
    const { clock, random, tuning } = parts;
    this.scheduler = new RefreshScheduler({
      clock,
      random,
      schedule: tuning.schedule,
      newest: () => this.held.newest(),
      refresh: () => this.refresh(),
    });
  }

  latest(): Publication | undefined {
    return this.held.snapshot.latest;
  }

  resolveDate(date: string): string | undefined {
    return this.held.resolve(date);
  }

  /** A database that cannot be read (PostgreSQL down) is a 503 with Retry-After, never a 500; Redis failures never reach here. */
  async loadPublications(dates: readonly string[]): Promise<(Publication | undefined)[]> {
    try {
      return await this.held.loadPublications(dates);
    } catch (error) {
      this.parts.logger.debug({ err: error }, 'reading publications failed');
      throw new ApiError('SERVICE_UNAVAILABLE', 'The rates database cannot be read right now; retry later.', {
        retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS,
      });
    }
  }

  knownCurrencies(): ReadonlySet<string> {
    return this.held.snapshot.currencies;
  }

  publicationDates(): readonly string[] {
    return this.held.snapshot.dates;
  }

  revision(): string | undefined {
    return this.held.snapshot.revision;
  }

  onRevision(listener: () => void): () => void {
    return this.held.onChange(listener);
  }

  status(): RatesStatus {
    const newest = this.held.newest();
    const lag = newest === undefined ? undefined : this.lag(newest, this.parts.clock());
    return {
      date: newest ?? null,
      fetchedAt: this.fetchedAt,
      stale: lag?.stale ?? true,
      missingPublications: lag?.missing ?? null,
      lastError: this.lastError,
    };
  }

  latestMaxAgeSeconds(): number {
    return this.maxAge(this.held.newest(), this.parts.clock());
  }

  /** Throws RatesFileError when RATES_FILE is set and cannot be read, parsed or accepted: a start without it would serve other rates than asked for. */
  async start(): Promise<void> {
    await this.sync(true).catch((error: unknown) => {
      throw new Error(`cannot read the rates cache: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    });
    const { ratesFile, logger, tuning } = this.parts;
    // After the import: a RATES_FILE that cannot be used stops the start with its own single line.
    if (ratesFile !== undefined) await this.importRatesFile(ratesFile);
    if (this.held.newest() === undefined)
      logger.info('no rates held yet: the currency routes answer 503 until RATES_FILE or the ECB provides them');
    // In the background: start() must not wait for the network (none at all is a supported case).
    void this.refresh().catch(() => undefined);
    this.scheduler.start();
    // Another instance's write, at once where the database can announce it (PostgreSQL NOTIFY)...
    this.unlisten = this.parts.cache.listen(() => void this.sync(false).catch(() => undefined));
    // ...and in any case within a period. Logged once when the database stops answering and once when it answers again, not every period.
    let failing = false;
    this.syncTimer = setInterval(() => {
      this.sync(false).then(
        () => {
          if (failing) logger.info('rates database readable again');
          failing = false;
        },
        (error: unknown) => {
          if (!failing)
            logger.warn(
              { error: error instanceof Error ? error.message : String(error) },
              'rates database check failed: serving what memory holds until it answers',
            );
          failing = true;
        },
      );
    }, tuning.syncIntervalMs);
    this.syncTimer.unref();
  }

  async stop(): Promise<void> {
    this.scheduler.stop();
    clearInterval(this.syncTimer);
    this.unlisten();
    this.parts.abort.abort();
    await this.refreshing?.catch(() => undefined);
    await this.held.settled();
    await this.parts.cache.close();
  }

  private async importRatesFile(file: string): Promise<void> {
    try {
      const report = await this.importFile(file);
      this.logLoad(`imported from RATES_FILE ${file}`, 'file', report);
    } catch (error) {
      if (error instanceof RatesSourceError) throw new RatesFileError(file, error);
      // Not the file's fault (the database did not take the write): serve what is held, say why.
      await this.recordFailure(error, 'RATES_FILE import failed');
    }
  }

  async importFile(file: string, onProgress: Progress = quiet): Promise<ImportReport> {
    onProgress(`reading ${file}`);
    const pubs = parseSource(await readSource(file), path.basename(file));
    onProgress(`parsed ${pubs.length} publications (${pubs[0]?.date ?? '-'} … ${pubs.at(-1)?.date ?? '-'})`);
    const counts = await this.held.apply(pubs, file, false, onProgress);
    this.fetchedAt = this.parts.clock().toISOString();
    await this.saveStatus({ fetchedAt: this.fetchedAt });
    return { file, ...counts, newest: this.held.newest() ?? null };
  }

  /** Concurrent calls share the running refresh: never more than one fetch of a file at a time. */
  refresh(onProgress: Progress = quiet): Promise<ImportReport> {
    this.refreshing ??= this.runRefresh(onProgress).finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async runRefresh(progress: Progress): Promise<ImportReport> {
    try {
      const fetched = await this.parts.cache.tryFetch(async () => {
        // Inside the lock: what the previous holder stored is seen before deciding what to fetch.
        await this.sync(false);
        return refreshFromEcb({
          client: this.parts.client,
          cache: this.parts.cache,
          today: berlinDate(this.parts.clock()),
          newest: () => this.held.newest(),
          holds: (date) => this.held.holds(date),
          apply: (pubs, source, daily) => this.held.apply(pubs, source, daily, progress),
          progress,
        });
      });
      if (!fetched.ran) {
        progress('another instance is fetching from the ECB: its result arrives through the revision check');
        await this.sync(false);
        return { file: '', publications: 0, added: 0, replaced: 0, newest: this.held.newest() ?? null };
      }
      const report = fetched.value;
      // A poll that brought nothing new (304, or the day already held) loads nothing: debug only.
      if (report.added + report.replaced > 0) this.logLoad('refreshed from the ECB', 'ecb', report);
      else this.parts.logger.debug({ newest: report.newest }, 'ECB rates refresh: nothing new');
      this.fetchedAt = this.parts.clock().toISOString();
      this.lastError = null;
      await this.saveStatus({ fetchedAt: this.fetchedAt, lastError: null });
      return report;
    } catch (error) {
      if (!this.parts.abort.signal.aborted) this.parts.onFetchFailure?.();
      await this.recordFailure(error, 'ECB rates refresh failed');
      throw error;
    }
  }

  /**
   * Reloads from the cache when its revision moved, takes a newer fetchedAt another process stored,
   * and the stored lastError: every process writes the outcome of each fetch there (a success
   * clears it), so it is the latest outcome, also of an `admin rates refresh`.
   */
  private async sync(force: boolean): Promise<void> {
    const reloaded = await this.held.reload(force);
    if (reloaded && this.held.newest() !== undefined)
      this.logLoad(force ? 'loaded from the database' : 'reloaded from the database (another process wrote)', 'database');
    const stored = await this.parts.cache.readStatus();
    if (stored.fetchedAt !== null && (this.fetchedAt === null || stored.fetchedAt > this.fetchedAt)) this.fetchedAt = stored.fetchedAt;
    this.lastError = stored.lastError;
  }

  /** One info line per load: where from, the newest publication, how many publications and currencies are held. */
  private logLoad(how: string, source: 'file' | 'ecb' | 'database', report?: ImportReport): void {
    const { dates, currencies } = this.held.snapshot;
    const newest = this.held.newest();
    const changes = report ? ` (${report.added} added, ${report.replaced} replaced)` : '';
    this.parts.logger.info(
      {
        source,
        newest,
        publications: dates.length,
        currencies: currencies.size,
        ...(report ? { added: report.added, replaced: report.replaced } : {}),
      },
      `rates ${how}: newest publication ${newest ?? 'none'}, ${counted(dates.length, 'publication')}, ${counted(currencies.size, 'currency', 'currencies')}${changes}`,
    );
  }

  /** One short warning line (the stack only at debug): a refresh that fails every few minutes must not fill the log. */
  private async recordFailure(error: unknown, what: string): Promise<void> {
    if (this.parts.abort.signal.aborted) return;
    this.lastError = error instanceof Error ? error.message : String(error);
    const newest = this.held.newest();
    this.parts.logger.warn(
      { error: this.lastError },
      `${what}: ${this.lastError} (serving ${newest ? `the rates held, newest ${newest}` : 'no rates yet'})`,
    );
    this.parts.logger.debug({ err: error }, what);
    await this.saveStatus({ lastError: this.lastError });
  }

  private async saveStatus(status: Partial<CachedStatus>): Promise<void> {
    await this.parts.cache
      .writeStatus(status)
      .catch((error: unknown) => this.parts.logger.warn({ err: error }, 'could not store the rates status'));
  }
}
