import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { requestState } from './request-state';

/** One log line per request: id, method, path (never the query string or headers), status, time, key id. */
export function useRequestLog(logger: Logger): Plugin {
  return {
    onResponse({ request, response, serverContext }) {
      const state = requestState(serverContext);
      const url = new URL(request.url, 'http://localhost');
      // Later plugins may still replace the response (a 304, an error envelope): on node:http, log
      // the status actually sent once it is; in-process (yoga.fetch) the response as it stands.
      const res = (serverContext as { res?: { statusCode: number; once(event: 'close', listener: () => void): unknown } }).res;
      const write = (status: number) => logger.info(
        {
          requestId: state.requestId,
          method: request.method,
          path: url.pathname,
          status,
          ms: Math.round((performance.now() - state.startedAt) * 10) / 10,
          ...(state.principal ? { keyId: state.principal.keyId, accountId: state.principal.account.id } : {}),
        },
        'request',
      );
      if (res) res.once('close', () => write(res.statusCode));
      else write(response.status);
    },
  };
}
