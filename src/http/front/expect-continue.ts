import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError } from '../../domain/errors';
import type { FrontHandler } from '../graphql/yoga-answers';
import { matchPath, MCP_PATH, routeLabel } from '../routes';
import type { Finish } from './finish';
import { refusalParts } from './odd-requests';
import type { HttpRequestContext } from './request-context';

/** Whether a request is served only with a valid key: a route of the table that takes one for its method, or /mcp. */
export function takesKey(pathname: string, method: string | undefined): boolean {
  if (pathname === MCP_PATH) return true;
  const routes = matchPath(pathname)?.routes ?? [];
  return routes.some((route) => route.access === 'key' && (route.method === method || (method === 'HEAD' && route.method === 'GET')));
}

/** Whether the request's framing announces content (a Content-Length above 0, or a transfer coding). */
function hasContent(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Serves a request that sent `Expect: 100-continue` (RFC 9110 10.1.1): the client waits for
 * 100 Continue before it sends its content. A request without content is served without it. One
 * to a surface that takes only a key has its key checked first: a refused key (401, or the store's
 * 503) is answered at once, without asking for the content, and the connection is closed after it
 * (the content may still follow, and is not read). Any other request is continued at once.
 */
export function serveExpectingContinue(
  finish: Finish,
  refused: WeakSet<Socket>,
  served: { req: IncomingMessage; res: ServerResponse; context: HttpRequestContext; started: number; pathname: string },
  handler: FrontHandler,
): void {
  const { req, res, context, started, pathname } = served;
  const proceed = () => {
    if (hasContent(req)) res.writeContinue();
    handler(req, res, context, started);
  };
  if (!hasContent(req) || !takesKey(pathname, req.method)) return proceed();
  const place = { label: routeLabel(pathname), cors: undefined };
  context.authenticate().then(proceed, (error: unknown) => {
    if (!(error instanceof ApiError)) return finish.unexpected(req, res, place, context, started)(error);
    refused.add(req.socket);
    res.once('finish', () => req.socket.end());
    void finish.send(req, res, place, context, refusalParts(error, context), started);
  });
}
