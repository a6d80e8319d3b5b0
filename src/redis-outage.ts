import type { Logger } from 'pino';

/** What a Redis client reports: the start of an outage (once) and its end. */
export interface RedisWatch {
  down(error: Error): void;
  back(): void;
}

/**
 * One log line when Redis becomes unreachable and one when it is back, for the whole process:
 * the rate limiters and the rates cache each hold a connection and each report to their own
 * watch; the first to fail starts the outage, the last to recover ends it. Never a stack trace:
 * an unreachable Redis is an expected fault with documented behaviour.
 */
export function redisOutageLog(logger: Logger): (component: string) => RedisWatch {
  const down = new Set<string>();
  return (component) => ({
    down(error) {
      if (down.has(component)) return;
      down.add(component);
      if (down.size > 1) return;
      const reason = error.message || (error as NodeJS.ErrnoException).code || error.name;
      logger.warn(
        { redis: 'down', reason },
        "Redis (REDIS_URL) unavailable: rate limits are counted in this instance's memory and rates are read from the database until it is back",
      );
    },
    back() {
      if (!down.delete(component) || down.size > 0) return;
      logger.info({ redis: 'up' }, 'Redis (REDIS_URL) is back: rate limits are shared by every instance and rates are cached in it again');
    },
  });
}
