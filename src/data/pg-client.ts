import pg from 'pg';

/**
 * How long one database call on the request path may take before the request gives up with 503
 * (contract section 11: a stalled database is detected within 5 s). The connection a query was
 * still running on at that point is destroyed, never handed to the next request.
 */
export const DATABASE_DEADLINE_MS = 4_000;

/** A query that did not answer within its deadline; its connection was destroyed. */
export class QueryDeadlineError extends Error {
  override name = 'QueryDeadlineError';
  /** The code of a network timeout: isDatabaseUnavailable treats it as one. */
  readonly code = 'ETIMEDOUT';
  constructor(ms: number) {
    super(`Query deadline exceeded: no answer from the database within ${ms} ms`);
  }
}

/** Marks a query that may legitimately wait longer than the deadline (an advisory lock held by another process). */
export const NO_DEADLINE = Symbol('no query deadline');

type Callback = (error: Error | null, result?: unknown) => void;

/**
 * A pg Client for pools that must never end the process and never keep a connection whose query
 * hung:
 * - it always listens for 'error'. pg emits 'error' on a client whose connection breaks; the pool
 *   listens only while the client is idle, so a break while it is checked out (a query in flight
 *   when PostgreSQL restarts, or an idle-session killer runs) had no listener and ended the process.
 *   The error still fails the client's queries, and the pool discards a client that is no longer
 *   queryable when it is released.
 * - each query has a deadline (`deadlineMs`): past it, the connection is destroyed, which fails the
 *   query (and anything queued behind it) with QueryDeadlineError and makes the pool drop the client.
 *   pg's own query_timeout only stops waiting and leaves the connection busy with the late query.
 */
export function resilientClient(deadlineMs: number, onError: (error: Error) => void = () => undefined): typeof pg.Client {
  return class ResilientClient extends pg.Client {
    constructor(config?: string | pg.ClientConfig) {
      super(config);
      this.on('error', onError);
    }

    override query(...args: unknown[]): never {
      const [config] = args;
      const exempt =
        typeof config === 'object' &&
        config !== null &&
        ((config as Record<symbol, unknown>)[NO_DEADLINE] === true || typeof (config as { submit?: unknown }).submit === 'function');
      if (deadlineMs <= 0 || exempt) return (super.query as (...a: unknown[]) => never)(...args);
      let settled = false;
      // Checked after the poll phase: an answer that arrived while the event loop was busy counts.
      const timer = setTimeout(
        () =>
          setImmediate(() => {
            if (settled) return;
            const stream = (this as unknown as { connection?: { stream?: { destroy(error?: Error): void } } }).connection?.stream;
            stream?.destroy(new QueryDeadlineError(deadlineMs));
          }),
        deadlineMs,
      );
      const done = () => {
        settled = true;
        clearTimeout(timer);
      };
      const last = args.length - 1;
      if (typeof args[last] === 'function') {
        const callback = args[last] as Callback;
        args[last] = (error: Error | null, result?: unknown) => {
          done();
          callback(error, result);
        };
        return (super.query as (...a: unknown[]) => never)(...args);
      }
      const result = (super.query as (...a: unknown[]) => Promise<unknown> | undefined)(...args);
      if (result && typeof result.then === 'function') result.then(done, done);
      else done();
      return result as never;
    }
  };
}
