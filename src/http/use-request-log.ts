import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { RequestContext } from '../services/request-context';
import { isExecution, requestContextOf } from './request-context';

/** One log line per request: id, method, path (never the query string or headers), status, error code, time, key id. */
export function useRequestLog(logger: Logger): Plugin {
  return {
    async onResponse({ request, response, serverContext }) {
      if (isExecution(serverContext)) return;
      const context = requestContextOf(serverContext);
      // Errors answered before any step that notes the code (the account page, GraphiQL's limit, media types): read from the body.
      if (context.errorCode === undefined && response.status >= 400) context.errorCode = await errorCodeOf(response);
      logRequest(logger, { method: request.method, path: new URL(request.url, 'http://localhost').pathname, status: response.status, context });
    },
  };
}

/** The access-log line, written the same way by the edge and for Yoga's answers. */
export function logRequest(logger: Logger, entry: { method: string; path: string; status: number; context: RequestContext }): void {
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

/** `error.code` of a REST body, or the first `extensions.code` of a GraphQL one; undefined for anything else. */
async function errorCodeOf(response: Response): Promise<string | undefined> {
  if (!/json/.test(response.headers.get('content-type') ?? '') || response.body === null) return undefined;
  try {
    const body = (await response.clone().json()) as { error?: { code?: unknown }; errors?: { extensions?: { code?: unknown } }[] };
    const code = body.error?.code ?? body.errors?.[0]?.extensions?.code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}
