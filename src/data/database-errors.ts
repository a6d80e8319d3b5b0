import BetterSqlite3 from 'better-sqlite3';
import { ApiError } from '../domain/errors';
import type { AccountStore, DatabaseHealth } from '../services/account-store';

/** How long a client should wait before trying again while the database is unreachable. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'ECONNABORTED',
]);
/** node-postgres' own messages for a connection that could not be made or was lost. */
const PG_CONNECTION_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|Query read timeout|Query deadline exceeded)/;
const SQLITE_UNAVAILABLE = /^SQLITE_(BUSY|BUSY_SNAPSHOT|FULL|IOERR(_[A-Z_]+)?)$/;

/**
 * Whether an error means "the database cannot answer now" rather than "this query is wrong": the
 * network (refused, reset, timed out), PostgreSQL's connection-exception class 08, a server shutting
 * down or starting (57P01-57P03), too many connections (53300), a statement cancelled by
 * statement_timeout (57014), node-postgres' lost-connection errors, and SQLite's lock wait running
 * out (SQLITE_BUSY after busy_timeout), a full disk (SQLITE_FULL) and a failing disk (SQLITE_IOERR_*):
 * the transaction was rolled back, nothing was written, and retrying later may work.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof BetterSqlite3.SqliteError) return SQLITE_UNAVAILABLE.test(error.code);
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code)) return true;
    if (/^08[0-9A-Z]{3}$/.test(code) || ['57P01', '57P02', '57P03', '53300', '57014'].includes(code)) return true;
  }
  if (PG_CONNECTION_MESSAGES.test(error.message)) return true;
  return error instanceof AggregateError && error.errors.some(isDatabaseUnavailable);
}

/** The one place a database fault becomes what the client sees: 503 SERVICE_UNAVAILABLE with Retry-After. */
export function databaseUnavailable(cause: unknown): ApiError {
  const error = new ApiError('SERVICE_UNAVAILABLE', 'The account database is unavailable; try again shortly.', {
    retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS,
  });
  (error as { cause?: unknown }).cause = cause;
  return error;
}

export interface FaultOptions {
  /** Told once when the database stops answering, and once when it answers again. */
  onChange?: (reachable: boolean, error?: unknown) => void;
  /**
   * Each call that has not settled after this long fails as unavailable (the work it started is
   * left to the connection's own deadline, pg-client.ts); none when absent (SQLite: every call is
   * synchronous underneath, nothing can hang on a network).
   */
  deadlineMs?: number;
}

/** How long health lets the database go without a successful call before it probes it. */
const PROBE_AFTER_MS = 1_000;

/**
 * The store with every method's database faults turned into databaseUnavailable (other errors pass
 * as they are), each call bounded by `deadlineMs`, and the database's reachability as the calls find
 * it (databaseHealth). Health probes (one cheap read, under the same deadline) while the database is
 * unreachable, so the state recovers without traffic, and when nothing has succeeded for a second,
 * so a stall with no traffic is reported within the deadline too.
 */
export function mapDatabaseFaults(store: AccountStore, kind: DatabaseHealth['kind'], options: FaultOptions = {}): AccountStore {
  const { onChange, deadlineMs } = options;
  let reachable = true;
  let lastSuccess = Date.now();
  const set = (now: boolean, error?: unknown) => {
    if (now) lastSuccess = Date.now();
    if (now === reachable) return;
    reachable = now;
    onChange?.(now, error);
  };
  let probing = false;
  const guarded = {} as Record<string, unknown>;
  const guard =
    (method: (...args: unknown[]) => Promise<unknown>) =>
    (...args: unknown[]) => {
      const started = Date.now();
      return withDeadline(method(...args), deadlineMs).then(
        (result) => {
          set(true);
          return result;
        },
        (error: unknown) => {
          if (!isDatabaseUnavailable(error)) throw error;
          // A call that began before the last success says nothing about the database now (its
          // deadline can expire just as the held-back answers of a stall arrive): only a call
          // started since then marks it unreachable.
          if (started >= lastSuccess) set(false, error);
          throw databaseUnavailable(error);
        },
      );
    };
  for (const [name, method] of Object.entries(store) as [string, unknown][]) {
    if (name === 'close' || name === 'databaseHealth' || name === 'knownUnreachable') continue;
    if (name === 'webhooks' || name === 'oauth') {
      // A group of queries of its own: each one guarded alike.
      // watchOutbox subscribes and queries nothing: kept as it is.
      guarded[name] = Object.fromEntries(
        Object.entries(method as object).map(([key, query]) => [
          key,
          key === 'watchOutbox' ? query : guard(query as (...args: unknown[]) => Promise<unknown>),
        ]),
      );
    } else if (typeof method === 'function') {
      guarded[name] = guard(method as (...args: unknown[]) => Promise<unknown>);
    } else {
      // A capability (chargesReadKeysRevision), kept as it is.
      guarded[name] = method;
    }
  }
  guarded['close'] = store.close;
  guarded['knownUnreachable'] = () => !reachable;
  guarded['databaseHealth'] = (): DatabaseHealth => {
    if (!probing && (!reachable || Date.now() - lastSuccess > PROBE_AFTER_MS)) {
      probing = true;
      void (guarded['keysRevision'] as () => Promise<number>)()
        .catch(() => undefined)
        .finally(() => (probing = false));
    }
    return { kind, reachable };
  };
  return guarded as unknown as AccountStore;
}

/** A call that has not settled within its deadline. */
export class DatabaseDeadlineError extends Error {
  override name = 'DatabaseDeadlineError';
  readonly code = 'ETIMEDOUT';
  constructor(ms: number) {
    super(`Query deadline exceeded: the database did not answer within ${ms} ms`);
  }
}

function withDeadline<T>(work: Promise<T>, ms: number | undefined): Promise<T> {
  if (ms === undefined || ms <= 0) return work;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    // After the poll phase: an answer that arrived while the event loop was busy settles `work` first.
    timer = setTimeout(() => setImmediate(() => reject(new DatabaseDeadlineError(ms))), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/** The URL with its password replaced by `***`, for messages; the scheme and host only when it does not parse. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return `${/^[a-z]+:\/\//i.exec(url)?.[0] ?? ''}… (not a valid URL)`;
  }
}
