import { createClient } from 'redis';
import { REDIS_DEADLINE_MS, redisGuard, type RedisGuard } from '../../redis-deadline';
import type { RedisWatch } from '../../redis-outage';
import type { SharedDocuments } from '../../services/persisted-documents';

/**
 * Bytes one registered document is accounted in Redis: its UTF-8 text and what holds it (its key,
 * its entry in the last-use set and in the sizes hash). Measured on Redis 7 with MEMORY USAGE: a
 * 16,000-byte document's key takes 16,456 bytes, a last-use entry about 150; 512 leaves room to spare.
 */
export function sharedEntryBytes(document: string): number {
  return Buffer.byteLength(document) + 512;
}

/** A hit: the document, its last use moved to now. KEYS: document, last-use set; ARGV: now, hash. */
const FIND_SCRIPT = `
local document = redis.call('GET', KEYS[1])
if document then redis.call('ZADD', KEYS[2], 'XX', ARGV[1], ARGV[2]) end
return document`;

/**
 * A registration, in one step on the server: a document already held has its lifetime and last
 * use refreshed; a new one counts against its registrant's hour (refused past it), is kept, and
 * the least recently used documents are evicted while the accounted bytes exceed the budget.
 * Documents gone by their TTL stay accounted until evicted in their turn (they are the least
 * recently used), so the count errs on the side of the budget.
 * KEYS: document, last-use set, bytes counter, sizes hash, registrant's counter.
 * ARGV: document, ttl, now, accounted bytes, budget, per hour, window seconds, hash, key prefix.
 */
const REGISTER_SCRIPT = `
local ttl, now, size, budget, limit = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('EXPIRE', KEYS[1], ttl)
  redis.call('ZADD', KEYS[2], now, ARGV[8])
  return 1
end
local count = redis.call('INCR', KEYS[5])
if count == 1 then redis.call('EXPIRE', KEYS[5], ARGV[7]) end
if count > limit then return 0 end
local before = tonumber(redis.call('HGET', KEYS[4], ARGV[8]) or '0')
redis.call('SET', KEYS[1], ARGV[1], 'EX', ttl)
redis.call('ZADD', KEYS[2], now, ARGV[8])
redis.call('HSET', KEYS[4], ARGV[8], size)
local held = redis.call('INCRBY', KEYS[3], size - before)
while held > budget do
  local oldest = redis.call('ZPOPMIN', KEYS[2])
  if #oldest == 0 then break end
  redis.call('DEL', ARGV[9] .. oldest[1])
  local freed = tonumber(redis.call('HGET', KEYS[4], oldest[1]) or '0')
  redis.call('HDEL', KEYS[4], oldest[1])
  held = redis.call('DECRBY', KEYS[3], freed)
end
return 1`;

export interface RedisDocumentsOptions {
  url: string;
  /** Key prefix: a document is `<prefix>:<sha256 hex>`; tests use a unique one per run. */
  prefix?: string;
  /** How long Redis keeps a registered document (refreshed by each registration). */
  ttlSeconds: number;
  /** PERSISTED_DOCUMENTS_SHARED_MB, in bytes: what the registered documents take in Redis at most, as accounted (sharedEntryBytes); the least recently used go first. */
  maxBytes: number;
  /** New documents one registrant may register per hour, counted by every instance together. */
  registrationsPerHour: number;
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
 * What the documents take in Redis is bounded by bytes (the least recently used go first), and
 * each registrant's new documents per hour by a counter every instance shares. The manifest's
 * documents are never written here, so never evicted.
 */
export class RedisDocuments implements SharedDocuments {
  private readonly client;
  private readonly guard: RedisGuard;
  private readonly prefix: string;
  private readonly ttlSeconds: number;
  private readonly maxBytes: number;
  private readonly registrationsPerHour: number;
  private readonly watch: RedisWatch | undefined;
  private down = false;

  constructor({
    url,
    prefix = 'apq',
    ttlSeconds,
    maxBytes,
    registrationsPerHour,
    watch,
    commandTimeoutMs = REDIS_DEADLINE_MS,
  }: RedisDocumentsOptions) {
    this.prefix = prefix;
    this.ttlSeconds = ttlSeconds;
    this.maxBytes = maxBytes;
    this.registrationsPerHour = registrationsPerHour;
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
      const value = await this.guard.run(() =>
        this.client.eval(FIND_SCRIPT, { keys: [this.keyOf(hash), this.lruKey], arguments: [String(Date.now()), hash] }),
      );
      return typeof value === 'string' ? value : undefined;
    } catch (error) {
      this.failed(error);
      return undefined;
    }
  }

  async set(hash: string, document: string, registrant: string): Promise<void> {
    if (!this.client.isReady) return;
    const keys = [this.keyOf(hash), this.lruKey, `${this.prefix}:~bytes`, `${this.prefix}:~sizes`, `${this.prefix}:~count:${registrant}`];
    const args = [
      document,
      this.ttlSeconds,
      Date.now(),
      sharedEntryBytes(document),
      this.maxBytes,
      this.registrationsPerHour,
      3600,
      hash,
      `${this.prefix}:`,
    ].map(String);
    try {
      await this.guard.run(() => this.client.eval(REGISTER_SCRIPT, { keys, arguments: args }));
    } catch (error) {
      this.failed(error);
    }
  }

  /** What the registered documents take, as accounted (sharedEntryBytes), and how many are held. */
  async held(): Promise<{ bytes: number; documents: number }> {
    const [bytes, documents] = await Promise.all([this.client.get(`${this.prefix}:~bytes`), this.client.zCard(this.lruKey)]);
    return { bytes: Number(bytes ?? 0), documents };
  }

  /** The registered documents by last use: a sorted set of hashes, scored by the time of their last registration or hit. */
  private get lruKey(): string {
    return `${this.prefix}:~lru`;
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
