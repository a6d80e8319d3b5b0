import { createClient } from 'redis';
import { REDIS_DEADLINE_MS, redisGuard, type RedisGuard } from '../../redis-deadline';
import type { RedisWatch } from '../../redis-outage';
import type { SharedDocuments } from '../../services/persisted-documents';

export interface RedisDocumentsOptions {
  url: string;
  /** Key prefix: a document is `<prefix>:<sha256 hex>`; tests use a unique one per run. */
  prefix?: string;
  /** How long Redis keeps a registered document (refreshed by each registration). */
  ttlSeconds: number;
  /** Told once when an outage starts and once when it ends. */
  watch?: RedisWatch | undefined;
  /** A command that takes longer fails, and the request goes on without Redis (default 250 ms). */
  commandTimeoutMs?: number;
}

/**
 * Registered persisted documents shared by every instance through Redis. A cache, never a source of
 * truth: a request waits for it at most the Redis deadline (contract section 11), and any failure
 * (down, cut, stalled, flushed) is a miss or a write that did not happen; the instance's own store
 * answers meanwhile, and a client whose hash is missed sends its document again (the APQ protocol).
 */
export class RedisDocuments implements SharedDocuments {
  private readonly client;
  private readonly guard: RedisGuard;
  private readonly prefix: string;
  private readonly ttlSeconds: number;
  private readonly watch: RedisWatch | undefined;
  private down = false;

  constructor({ url, prefix = 'apq', ttlSeconds, watch, commandTimeoutMs = REDIS_DEADLINE_MS }: RedisDocumentsOptions) {
    this.prefix = prefix;
    this.ttlSeconds = ttlSeconds;
    this.watch = watch;
    this.guard = redisGuard({
      ping: () => this.client.ping(),
      deadlineMs: commandTimeoutMs,
      onStall: (error) => this.failed(error),
      onBack: () => this.recovered(),
    });
    this.client = createClient({
      url,
      // Fail at once while disconnected instead of queueing behind the reconnect loop.
      disableOfflineQueue: true,
      socket: { connectTimeout: 2_000, reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 2_000) },
    });
    // node-redis emits errors as events (every failed reconnect): without a listener one would end the process.
    this.client.on('error', (error: Error) => this.failed(error));
    this.client.on('ready', () => this.recovered());
    this.client.connect().catch((error: unknown) => this.failed(error));
  }

  /** True while connected and answering. */
  get available(): boolean {
    return this.client.isReady && !this.guard.stalled;
  }

  async get(hash: string): Promise<string | undefined> {
    if (!this.client.isReady) return undefined;
    try {
      const value = await this.guard.run(() => this.client.get(this.keyOf(hash)));
      return typeof value === 'string' ? value : undefined;
    } catch (error) {
      this.failed(error);
      return undefined;
    }
  }

  async set(hash: string, document: string): Promise<void> {
    if (!this.client.isReady) return;
    try {
      await this.guard.run(() => this.client.set(this.keyOf(hash), document, { expiration: { type: 'EX', value: this.ttlSeconds } }));
    } catch (error) {
      this.failed(error);
    }
  }

  async close(): Promise<void> {
    this.guard.stop();
    if (this.client.isOpen) await this.client.close().catch(() => this.client.destroy());
    else this.client.destroy();
  }

  private keyOf(hash: string): string {
    return `${this.prefix}:${hash}`;
  }

  private failed(error: unknown): void {
    if (this.down) return;
    this.down = true;
    this.watch?.down(error instanceof Error ? error : new Error(String(error)));
  }

  private recovered(): void {
    if (!this.down || this.guard.stalled || !this.client.isReady) return;
    this.down = false;
    this.watch?.back();
  }
}
