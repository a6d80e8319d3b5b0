import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

/**
 * One counter update per bucket per event-loop turn, for limiters whose counters live in Redis: the
 * requests of one bucket (one API key, one client IP) that ask within a turn spend together, one
 * `consume(bucket, n)`, instead of a Redis round trip each. Each request then gets what it would have
 * got alone, in the order it asked: the i-th of n was the (after − n + i)-th point of the window, so
 * it passes while that is within the limit and is refused past it, with the same remaining points
 * and reset as the one-by-one answers. Points refused still count, as rate-limiter-flexible counts
 * a refused consume. What the limiter does on a Redis fault (its insurance limiter in memory) is
 * unchanged: it counts the n points there.
 */
export function consumeByTurn(limiter: RateLimiterAbstract, limit: number): (bucket: string) => Promise<RateLimiterRes> {
  interface Waiter {
    resolve(res: RateLimiterRes): void;
    reject(reason: unknown): void;
  }
  let pending = new Map<string, Waiter[]>();

  const settle = (waiters: readonly Waiter[], res: RateLimiterRes) => {
    const n = waiters.length;
    const after = Math.max(res.consumedPoints, n);
    waiters.forEach((waiter, i) => {
      const consumed = after - n + i + 1;
      const own = new RateLimiterRes(Math.max(0, limit - consumed), res.msBeforeNext, consumed, res.isFirstInDuration && i === 0);
      if (consumed > limit) waiter.reject(own);
      else waiter.resolve(own);
    });
  };

  const flush = () => {
    const groups = pending;
    pending = new Map();
    for (const [bucket, waiters] of groups) {
      limiter.consume(bucket, waiters.length).then(
        (res) => settle(waiters, res),
        (rejection: unknown) => {
          // Over the limit: a RateLimiterRes that still tells where the window stands.
          if (rejection instanceof RateLimiterRes) settle(waiters, rejection);
          else for (const waiter of waiters) waiter.reject(rejection);
        },
      );
    }
  };

  return (bucket) =>
    new Promise<RateLimiterRes>((resolve, reject) => {
      if (pending.size === 0) setImmediate(flush);
      const waiters = pending.get(bucket);
      if (waiters) waiters.push({ resolve, reject });
      else pending.set(bucket, [{ resolve, reject }]);
    });
}
