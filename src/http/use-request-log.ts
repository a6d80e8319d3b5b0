import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { requestState } from './request-state';

/** One log line per request: id, method, path (never the query string or headers), status, time, key id. */
export function useRequestLog(logger: Logger): Plugin {
  return {
    onResponse({ request, response, serverContext }) {
      const state = requestState(serverContext);
      const url = new URL(request.url, 'http://localhost');
      logger.info(
        {
          requestId: state.requestId,
          method: request.method,
          path: url.pathname,
          status: response.status,
          ms: Math.round((performance.now() - state.startedAt) * 10) / 10,
          ...(state.principal ? { keyId: state.principal.keyId, accountId: state.principal.account.id } : {}),
        },
        'request',
      );
    },
  };
}
