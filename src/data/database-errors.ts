import BetterSqlite3 from 'better-sqlite3';
import { ApiError } from '../domain/errors';
import type { AccountStore, DatabaseHealth } from '../services/account-store';

/** How long a client should wait before trying again while the database is unreachable. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'ECONNABORTED']);
/** node-postgres' own messages for a connection that could not be made or was lost. */
const PG_CONNECTION_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|Query read timeout)/;

/**
 * Whether an error means "the database cannot answer now" rather than "this query is wrong": the
 * network (refused, reset, timed out), PostgreSQL's connection-exception class 08, a server shutting
 * down or starting (57P01-57P03), too many connections (53300), a statement cancelled by
 * statement_timeout (57014), node-postgres' lost-connection errors, and SQLite's lock wait running
 * out (SQLITE_BUSY after busy_timeout).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof BetterSqlite3.SqliteError) return error.code === 'SQLITE_BUSY' || error.code === 'SQLITE_BUSY_SNAPSHOT';
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

/**
 * The store with every method's database faults turned into databaseUnavailable (other errors pass
 * as they are), and the database's reachability as the calls find it (databaseHealth).
 */
export function mapDatabaseFaults(store: AccountStore, kind: DatabaseHealth['kind'], onChange?: (reachable: boolean, error?: unknown) => void): AccountStore {
  let reachable = true;
  const set = (now: boolean, error?: unknown) => {
    if (now === reachable) return;
    reachable = now;
    onChange?.(now, error);
  };
  let probing = false;
  const guarded = {} as Record<string, unknown>;
  for (const [name, method] of Object.entries(store) as [string, (...args: unknown[]) => Promise<unknown>][]) {
    if (name === 'close' || name === 'databaseHealth') continue;
    guarded[name] = (...args: unknown[]) =>
      method(...args).then(
        (result) => {
          set(true);
          return result;
        },
        (error: unknown) => {
          if (!isDatabaseUnavailable(error)) throw error;
          set(false, error);
          throw databaseUnavailable(error);
        },
      );
  }
  guarded['close'] = store.close;
  guarded['databaseHealth'] = (): DatabaseHealth => {
    if (!reachable && !probing) {
      probing = true;
      void (guarded['keysRevision'] as () => Promise<number>)()
        .catch(() => undefined)
        .finally(() => (probing = false));
    }
    return { kind, reachable };
  };
  return guarded as unknown as AccountStore;
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
