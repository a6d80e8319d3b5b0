import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { requestContextOf } from './request-context';

/** One log line per request: id, method, path (never the query string or headers), status, time, key id. */
export function useRequestLog(logger: Logger): Plugin {
  return {
    onResponse({ request, response, serverContext }) {
      const context = requestContextOf(serverContext);
      const url = new URL(request.url, 'http://localhost');
      logger.info(
        {
          requestId: context.requestId,
          method: request.method,
          path: url.pathname,
          status: response.status,
          ms: Math.round((performance.now() - context.startedAt) * 10) / 10,
          ...(context.principal ? { keyId: context.principal.keyId, accountId: context.principal.account.id } : {}),
        },
        'request',
      );
    },
  };
}
