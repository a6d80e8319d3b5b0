import type { Logger } from 'pino';
import type { HttpRequestContext } from './request-context';

/** The access-log line: one per answer (finish.ts), with its error code. */
export function logRequest(logger: Logger, entry: { method: string; path: string; status: number; context: HttpRequestContext }): void {
  const { context } = entry;
  logger.info(
    {
      requestId: context.requestId,
      method: entry.method,
      path: entry.path,
      status: entry.status,
      ...(context.errorCode === undefined ? {} : { code: context.errorCode }),
      ms: Math.round((performance.now() - context.startedAt) * 10) / 10,
      ...(context.principal ? { keyId: context.principal.keyId, accountId: context.principal.account.id } : {}),
    },
    'request',
  );
}
