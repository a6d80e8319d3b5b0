import { createClient } from 'redis';
import type { Publication } from '../../domain/ecb';
import { REDIS_DEADLINE_MS, redisGuard, type RedisGuard } from '../../redis-deadline';
import type { RedisWatch } from '../../redis-outage';

type Rates = Record<string, string>;

const TTL_SECONDS = 24 * 3600;

export interface RedisFrontOptions {
  url: string;
  /** Key prefix: publications are `<prefix>:pub:<date>`; tests use a unique one per run. */
  prefix: string;
  /** Told once when an outage starts and once when it ends (never per request). */
  watch?: RedisWatch | undefined;
  /** A Redis command that takes longer fails and the database answers instead (default REDIS_DEADLINE_MS, 250 ms). */
  commandTimeoutMs?: number;
}

/**
 * Redis in front of the database for whole publications: a cache that may be lost at any time,
 * never a source of truth. Every failure (down, flushed, slow) is a miss: the caller reads the
 * database and refills. Connects in the background and reconnects by itself; an outage is
 * reported once when it starts and once when it ends, never per request.
 */
export class RedisFront {
  private readonly client;
  private readonly prefix: string;
  private readonly watch: RedisWatch | undefined;
  private readonly guard: RedisGuard;
  private down = false;
  /** Dates whose write failed while Redis was down: deleted when it is back, so no old value outlives a correction. */
  private readonly unsynced = new Set<string>();
  /** Settles when the first connection attempt has (connectTimeout at most): the first reads wait for it, later ones never wait. */
  private readonly firstAttempt: Promise<void>;

  constructor({ url, prefix, watch, commandTimeoutMs = REDIS_DEADLINE_MS }: RedisFrontOptions) {
    this.prefix = prefix;
    this.watch = watch;
    // A stalled connection fails each read within the deadline, then at once until Redis answers a probe.
    this.guard = redisGuard({
      ping: () => this.client.ping(),
      deadlineMs: commandTimeoutMs,
      onStall: (error) => this.failed(error),
      onBack: () => void this.recovered(),
    });
    this.client = createClient({
      url,
      // Fail at once while disconnected instead of queueing requests behind the reconnect loop.
      disableOfflineQueue: true,
      socket: { connectTimeout: 2_000, reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 2_000) },
    });
    let settle: () => void = () => undefined;
    this.firstAttempt = new Promise((resolve) => {
      settle = resolve;
    });
    // node-redis emits errors as events (every failed reconnect): without a listener one would crash the process.
    this.client.on('error', (error: Error) => {
      settle();
      this.failed(error);
    });
    this.client.on('ready', () => {
      settle();
      void this.recovered();
    });
    // Resolves on the first successful connection, however long Redis stays away.
    this.client.connect().catch((error: unknown) => this.failed(error));
  }

  /** True while connected and answering. */
  get available(): boolean {
    return this.client.isReady && !this.guard.stalled;
  }

  /** The cached rates of these dates, undefined where missing or when Redis fails. */
  async get(dates: readonly string[]): Promise<(Rates | undefined)[]> {
    if (dates.length === 0) return [];
    await this.firstAttempt;
    if (!this.client.isReady) return dates.map(() => undefined);
    try {
      const values = await this.guard.run(() => this.client.mGet(dates.map((date) => this.keyOf(date))));
      if (this.down || this.unsynced.size > 0) void this.recovered();
      return values.map((value) => (typeof value === 'string' ? (JSON.parse(value) as Rates) : undefined));
    } catch (error) {
      this.failed(error);
      return dates.map(() => undefined);
    }
  }

  /**
   * Stores publications (after the database has them); a failure is only logged. `written` says
   * they are new data: if they cannot be stored, their old copies are deleted once Redis is back.
   * Entries expire after a day, a bound on anything stale a race could leave behind.
   */
  async set(pubs: readonly Publication[], written: boolean): Promise<void> {
    if (pubs.length === 0) return;
    await this.firstAttempt;
    try {
      if (!this.client.isReady) throw new Error('Redis is not connected');
      const multi = this.client.multi();
      for (const pub of pubs) multi.set(this.keyOf(pub.date), JSON.stringify(pub.rates), { EX: TTL_SECONDS });
      await this.guard.run(() => multi.execAsPipeline());
    } catch (error) {
      if (written) for (const pub of pubs) this.unsynced.add(pub.date);
      this.failed(error);
    }
  }

  /** Deletes every publication key of this prefix (tests). */
  async clear(): Promise<void> {
    await this.firstAttempt;
    if (!this.client.isReady) return;
    for await (const keys of this.client.scanIterator({ MATCH: `${this.prefix}:pub:*`, COUNT: 1000 })) {
      if (keys.length > 0) await this.client.del(keys);
    }
  }

  async close(): Promise<void> {
    this.guard.stop();
    if (this.client.isOpen) await this.client.close().catch(() => this.client.destroy());
    else this.client.destroy();
  }

  private keyOf(date: string): string {
    return `${this.prefix}:pub:${date}`;
  }

  private failed(error: unknown): void {
    if (this.down) return;
    this.down = true;
    this.watch?.down(error instanceof Error ? error : new Error(String(error)));
  }

  private async recovered(): Promise<void> {
    if (this.unsynced.size > 0) {
      const dates = [...this.unsynced];
      this.unsynced.clear();
      await this.client.del(dates.map((date) => this.keyOf(date))).catch((error: unknown) => {
        for (const date of dates) this.unsynced.add(date);
        this.failed(error);
      });
    }
    if (!this.down || this.guard.stalled) return;
    this.down = false;
    this.watch?.back();
  }
}
