/**
 * How long a Redis command may take (contract section 11: a stalled Redis is detected within 250 ms;
 * then rate limits are counted in this instance's memory and rates read from the database).
 */
export const REDIS_DEADLINE_MS = 250;
/** While Redis is stalled, a PING tries it this often (with the same deadline). */
const PROBE_EVERY_MS = 250;

/** A command refused without asking Redis: it did not answer within the deadline, and has not answered a probe since. */
export class RedisStalledError extends Error {
  override name = 'RedisStalledError';
}

export interface RedisGuard {
  /** Runs `command` under the deadline; while Redis is stalled, rejects at once (RedisStalledError). */
  run<T>(command: () => Promise<T>): Promise<T>;
  /** True from a command's deadline until a probe is answered. */
  readonly stalled: boolean;
  /** Stops probing (close). */
  stop(): void;
}

export interface RedisGuardOptions {
  /** The PING that probes Redis while it is stalled. */
  ping: () => Promise<unknown>;
  deadlineMs?: number;
  /** Once when a stall starts (a command past its deadline). */
  onStall?: (error: Error) => void;
  /** Once when a probe is answered after a stall. */
  onBack?: () => void;
}

/**
 * A deadline on every Redis command, and a breaker: a stalled connection (bytes stop moving, the
 * socket stays open, so the client never notices) would otherwise hold every command, and every
 * route behind a rate limit, for as long as the stall. The first command past the deadline opens
 * the breaker: from then on commands fail at once (their callers fall back as for Redis down) and a
 * PING probes every PROBE_EVERY_MS until Redis answers, which closes it. A command that fails
 * otherwise (disconnected: node-redis refuses at once without an offline queue) just fails.
 */
export function redisGuard({ ping, deadlineMs = REDIS_DEADLINE_MS, onStall, onBack }: RedisGuardOptions): RedisGuard {
  let stalled = false;
  let probe: NodeJS.Timeout | undefined;
  let stopped = false;

  const within = <T>(command: () => Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      // After the poll phase: an answer that arrived while the event loop was busy is read first,
      // so a slow turn of this process is not taken for a stalled Redis.
      timer = setTimeout(
        () => setImmediate(() => reject(new RedisStalledError(`Redis did not answer within ${deadlineMs} ms`))),
        deadlineMs,
      );
    });
    let work: Promise<T>;
    try {
      work = command();
    } catch (error) {
      clearTimeout(timer);
      return Promise.reject(error as Error);
    }
    return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
  };
  const probeLater = () => {
    if (stopped || probe) return;
    probe = setTimeout(() => {
      within(ping).then(
        () => {
          probe = undefined;
          if (!stalled) return;
          stalled = false;
          onBack?.();
        },
        () => {
          probe = undefined;
          probeLater();
        },
      );
    }, PROBE_EVERY_MS);
    probe.unref();
  };

  return {
    run(command) {
      if (stalled) return Promise.reject(new RedisStalledError('Redis is stalled: waiting for it to answer a probe'));
      return within(command).catch((error: unknown) => {
        if (error instanceof RedisStalledError && !stalled) {
          stalled = true;
          onStall?.(error);
          probeLater();
        }
        throw error;
      });
    },
    get stalled() {
      return stalled;
    },
    stop() {
      stopped = true;
      clearTimeout(probe);
    },
  };
}

/**
 * The node-redis client as rate-limiter-flexible's RateLimiterRedis uses it (`eval`, `multi()…exec`),
 * with every command run through `guard`; everything else as the client has it.
 */
export function guardedRedisClient<C extends object>(client: C, guard: RedisGuard): C {
  const multiOf = (multi: object): object => {
    const proxy: object = new Proxy(multi, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target) as unknown;
        if (typeof value !== 'function') return value;
        if (prop === 'exec' || prop === 'execAsPipeline')
          return (...args: unknown[]) => guard.run(() => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args));
        return (...args: unknown[]) => {
          const result = (value as (...a: unknown[]) => unknown).apply(target, args);
          return result === target ? proxy : result;
        };
      },
    });
    return proxy;
  };
  return new Proxy(client, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== 'function') return value;
      if (prop === 'multi') return (...args: unknown[]) => multiOf((value as (...a: unknown[]) => object).apply(target, args));
      if (prop === 'eval' || prop === 'evalSha' || prop === 'sendCommand')
        return (...args: unknown[]) => guard.run(() => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args));
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
}
