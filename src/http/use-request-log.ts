import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { RequestContext } from '../services/request-context';
import { requestContextOf } from './request-context';

/** One log line per request: id, method, path (never the query string or headers), status, time, key id. */
export function useRequestLog(logger: Logger): Plugin {
  return {
    onResponse({ request, response, serverContext }) {
      const context = requestContextOf(serverContext);
      logRequest(logger, { method: request.method, path: new URL(request.url, 'http://localhost').pathname, status: response.status, context });
    },
  };
}

/** The access-log line, written the same way by both lanes. */
export function logRequest(logger: Logger, entry: { method: string; path: string; status: number; context: RequestContext }): void {
  const { context } = entry;
  logger.info(
    {
      requestId: context.requestId,
      method: entry.method,
      path: entry.path,
      status: entry.status,
      ms: Math.round((performance.now() - context.startedAt) * 10) / 10,
      ...(context.principal ? { keyId: context.principal.keyId, accountId: context.principal.account.id } : {}),
    },
    'request',
  );
}
