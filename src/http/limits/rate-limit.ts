import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { createClient, type RedisClientType } from 'redis';
import { ApiError } from '../../domain/errors';
import { type RateLimitKind, type RateLimitPolicy, type RateLimitState } from '../../domain/rate-limit';
import { guardedRedisClient, redisGuard, type RedisGuard } from '../../redis-deadline';
import { consumeByTurn } from './rate-limit-turns';

/**
 * Request rate limits (contract section 7): per client IP on public routes, per API key on keyed
 * routes. Fixed windows from rate-limiter-flexible, in process memory or, with REDIS_URL, in Redis
 * so that every instance spends from one counter. Never the monthly quota: that is the store's.
 */
export { RATE_LIMIT_KINDS, type RateLimitKind, type RateLimitPolicy, type RateLimitState } from '../../domain/rate-limit';

interface RateLimitOptions {
  /** PUBLIC_RATE_LIMIT: requests a minute per client IP bucket. */
  publicPerMinute: number;
  /** KEY_RATE_LIMIT: requests a second per API key. */
  keyPerSecond: number;
  /** REDIS_URL: shared counters; in-process memory when absent. */
  redisUrl?: string | undefined;
  /** Prefix of every counter key (default `msr:rl`); tests use a unique one per run. */
  keyPrefix?: string;
  /** How long start-up waits for an answer from Redis before counting in memory (default 5000 ms); it keeps trying in the background. */
  connectTimeoutMs?: number;
  /** Once per Redis outage (also one at start): the limiters count in this instance's memory until it is back. */
  onRedisDown?: (error: Error) => void;
  /** Once when Redis is back after an outage: the counters are shared again. */
  onRedisBack?: () => void;
}

export interface RateLimiters {
  readonly policies: Readonly<Record<RateLimitKind, RateLimitPolicy>>;
  /** The rate-limiter-flexible instances behind consume (the GraphQL directive shares them). */
  readonly limiters: Readonly<Record<RateLimitKind, RateLimiterAbstract>>;
  /**
   * Another fixed-window limiter on the same store (memory, or the same Redis connection), for
   * counters beyond the request limits (the account page's failed log-ins and sign-ups).
   * `name` becomes part of the counter keys.
   */
  create(name: string, points: number, windowSeconds: number): RateLimiterAbstract;
  /**
   * Spends one request of `bucket` (or `points`, at most the window's limit, for a request that
   * costs more); throws RATE_LIMIT_EXCEEDED (429) when the window is used up.
   */
  consume(kind: RateLimitKind, bucket: string, points?: number): Promise<RateLimitState>;
  /** Where requests are counted right now: `redis` (shared by every instance) or this instance's `memory`. */
  countedIn(): 'redis' | 'memory';
  /** True when REDIS_URL is set: counting in memory then means Redis is down. */
  readonly redisConfigured: boolean;
  /** Closes the Redis connection, if any. */
  close(): Promise<void>;
}

export async function createRateLimiters(options: RateLimitOptions): Promise<RateLimiters> {
  const policies: Record<RateLimitKind, RateLimitPolicy> = {
    public: { name: 'per-ip', limit: options.publicPerMinute, windowSeconds: 60, description: 'a minute per client IP' },
    key: { name: 'per-key', limit: options.keyPerSecond, windowSeconds: 1, description: 'a second per API key' },
  };
  const prefix = options.keyPrefix ?? 'msr:rl';
  const connected = options.redisUrl === undefined ? undefined : await connectRedis(options);
  const redis = connected?.client;
  const guard = connected?.guard;
  const limiterOf = (kind: string, points: number, duration: number): RateLimiterAbstract => {
    const base = { points, duration, keyPrefix: `${prefix}:${kind}` };
    if (!redis || !guard) return new RateLimiterMemory(base);
    // The insurance limiter answers while Redis is down (commands fail at once: no offline queue)
    // or stalled (no answer within the guard's deadline), so an outage degrades to per-instance
    // counting instead of failing, or holding, every request.
    return new RateLimiterRedis({
      ...base,
      storeClient: guardedRedisClient(redis, guard),
      useRedisPackage: true,
      insuranceLimiter: new RateLimiterMemory(base),
    });
  };
  const limiters = {
    public: limiterOf('public', policies.public.limit, policies.public.windowSeconds),
    key: limiterOf('key', policies.key.limit, policies.key.windowSeconds),
  };
  // With Redis, a bucket's requests of one event-loop turn spend in one round trip (rate-limit-turns.ts);
  // in memory a consume is a Map update, which waiting for the turn's end would only delay.
  const spend: Record<RateLimitKind, (bucket: string) => Promise<RateLimiterRes>> = redis
    ? { public: consumeByTurn(limiters.public, policies.public.limit), key: consumeByTurn(limiters.key, policies.key.limit) }
    : { public: (bucket) => limiters.public.consume(bucket), key: (bucket) => limiters.key.consume(bucket) };

  // The GraphQL directive consumes through `limiters` itself: its one-point consumes take the same turn.
  const shared: Record<RateLimitKind, RateLimiterAbstract> = redis
    ? { public: byTurn(limiters.public, spend.public), key: byTurn(limiters.key, spend.key) }
    : limiters;

  return {
    policies,
    limiters: shared,
    create: (name, points, windowSeconds) => limiterOf(name, points, windowSeconds),
    async consume(kind, bucket, points = 1) {
      try {
        const spent = points === 1 ? spend[kind](bucket) : limiters[kind].consume(bucket, Math.min(points, policies[kind].limit));
        return rateLimitState(policies[kind], await spent);
      } catch (rejection) {
        // rate-limiter-flexible rejects with a RateLimiterRes when over the limit, an Error otherwise.
        if (rejection instanceof RateLimiterRes) throw rateLimitExceeded(rateLimitState(policies[kind], rejection));
        throw rejection;
      }
    },
    countedIn: () => (redis?.isReady && !guard?.stalled ? 'redis' : 'memory'),
    redisConfigured: redis !== undefined,
    async close() {
      guard?.stop();
      if (redis?.isReady) await redis.close();
      else redis?.destroy();
    },
  };
}

/** The limiter, with its plain one-point consume(bucket) spent by the turn (`spend`); every other call as it is. */
function byTurn(limiter: RateLimiterAbstract, spend: (bucket: string) => Promise<RateLimiterRes>): RateLimiterAbstract {
  return new Proxy(limiter, {
    get(target, prop, receiver) {
      if (prop !== 'consume') return Reflect.get(target, prop, receiver) as unknown;
      return (key: string | number, points = 1, options?: object) =>
        points === 1 && options === undefined ? spend(String(key)) : target.consume(key, points, options);
    },
  });
}

/**
 * Connects, waiting at most connectTimeoutMs: Redis down at start-up is an outage like any other
 * (memory counting, one warning), not a reason to refuse to serve. The client keeps reconnecting
 * in the background; every outage (down, or stalled past the guard's deadline) is reported once
 * when it starts and once when it ends.
 */
async function connectRedis(options: RateLimitOptions): Promise<{ client: RedisClientType; guard: RedisGuard }> {
  const client = createClient({
    url: options.redisUrl,
    disableOfflineQueue: true,
    socket: { connectTimeout: 2_000, reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 2_000) },
  });
  let down = false;
  let firstFailure: () => void = () => undefined;
  const wentDown = (error: Error) => {
    firstFailure();
    if (down) return;
    down = true;
    (options.onRedisDown ?? ((e) => process.emitWarning(e)))(error);
  };
  // node-redis emits errors as events (each failed reconnect): without a listener one would crash the process.
  client.on('error', wentDown);
  const cameBack = () => {
    if (!down || guard.stalled) return;
    down = false;
    options.onRedisBack?.();
  };
  client.on('ready', cameBack);
  const guard = redisGuard({ ping: () => client.ping(), onStall: wentDown, onBack: cameBack });
  const timeoutMs = options.connectTimeoutMs ?? 5000;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
  });
  // Whichever comes first: connected, the first attempt refused (no use waiting), or the timeout.
  const refused = new Promise<void>((resolve) => {
    firstFailure = resolve;
  });
  await Promise.race([client.connect().catch((error: Error) => wentDown(error)), refused, timeout]);
  clearTimeout(timer);
  if (!client.isReady) wentDown(new Error(`Redis (REDIS_URL) did not answer within ${timeoutMs} ms`));
  return { client, guard };
}

/** The state a rate-limiter-flexible answer describes (what the GraphQL directive hands over too). */
export function rateLimitState(policy: RateLimitPolicy, res: RateLimiterRes): RateLimitState {
  return { policy, remaining: Math.max(0, res.remainingPoints), resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)) };
}

/**
 * The RateLimit-Policy and RateLimit fields of draft-ietf-httpapi-ratelimit-headers-09 and later
 * (Structured Field lists, RFC 9651): `"per-key";q=50;w=1` and `"per-key";r=49;t=1`. The older
 * `limit=, remaining=, reset=` syntax of drafts 07 and earlier is not sent.
 */
export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return { 'RateLimit-Policy': rateLimitPolicyField(state.policy), RateLimit: rateLimitField(state) };
}

/** The RateLimit-Policy field of a policy: `"per-key";q=50;w=1`. */
export function rateLimitPolicyField({ name, limit, windowSeconds }: RateLimitPolicy): string {
  return `"${name}";q=${limit};w=${windowSeconds}`;
}

/** The RateLimit field of a state: `"per-key";r=49;t=1`. */
export function rateLimitField(state: RateLimitState): string {
  return `"${state.policy.name}";r=${state.remaining};t=${state.resetSeconds}`;
}

/** RATE_LIMIT_EXCEEDED, to be retried when the window resets; the edge sends Retry-After and the exhausted policy's RateLimit fields. */
export function rateLimitExceeded(state: RateLimitState): ApiError {
  const { limit, description } = state.policy;
  const seconds = state.resetSeconds === 1 ? '1 second' : `${state.resetSeconds} seconds`;
  return new ApiError('RATE_LIMIT_EXCEEDED', `Too many requests: at most ${limit} ${description}. Retry in ${seconds}.`, {
    retryAfterSeconds: state.resetSeconds,
    rateLimit: { ...state, remaining: 0 },
  });
}
