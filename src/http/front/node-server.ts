import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { MetricsAccess } from '../../config';
import { clientIp, type TrustProxy } from '../../domain/client-ip';
import { ApiError } from '../../domain/errors';
import type { Metrics } from '../../metrics';
import type { ResponseParts } from '../answer/answer-parts';
import { answerClientErrors, answerRefusal, capConnections, refuseConnect } from './socket-answers';
import { errorParts } from '../answer/errors';
import type { AnswerPlace, Finish } from './finish';
import { ASSETS_PATH } from '../graphiql/bundle';
import { GRAPHQL_PATH } from '../graphql/graphql-http';
import { GRAPHQL_PLACE } from '../graphql/graphql-answers';
import { graphQLPreflightParts } from '../answer/shared-resource';
import { serveExpectingContinue } from './expect-continue';
import { oddRequestAnswer, OTHER_PLACE } from './odd-requests';
import { originOf, type RequestOrigin, type HttpRequestContext } from './request-context';
import { isAccountPath, isFrontDoorPath, isOAuthPath, MCP_PATH, METRICS_PATH, routeLabel } from '../routes';
import { isExactTarget, pathOf } from './target';
import { connectionsChecker, whileConnected } from './while-connected';
import type { FrontHandler } from '../graphql/yoga-answers';

/** What the front dispatches to and finishes with: built by the app (app.ts). */
export interface Front {
  /** Each request's context, minted once per request. */
  contextOf(origin: RequestOrigin): HttpRequestContext;
  /** The one way every answer leaves. */
  finish: Finish;
  /** Every REST route and every path no other handler owns (edge.ts). */
  edge: FrontHandler;
  /** /graphql: every GraphQL request (graphql-answers.ts), and GraphiQL's page through `pages`. */
  graphql: FrontHandler;
  /** GraphiQL's assets, the account pages and the front door (`/`, `/docs`), answered by Yoga's Fetch handler. */
  pages: FrontHandler;
  /** /mcp: the MCP server (src/mcp). */
  mcp: FrontHandler;
  /** The agents' OAuth paths (routes.ts isOAuthPath): src/http/oauth. */
  oauth: FrontHandler;
  metrics: Metrics;
}

export interface HttpServerOptions {
  front: Front;
  logger: Logger;
  /** Who may read /metrics (METRICS). */
  metricsAccess: MetricsAccess;
  trust: TrustProxy;
  /** Open client connections at most (MAX_CONNECTIONS): the next ones get a 503 and are closed. */
  maxConnections?: number;
  /** Seconds an idle keep-alive connection stays open (KEEP_ALIVE_TIMEOUT); 75 when not given. */
  keepAliveTimeoutSeconds?: number;
  /** The request head's limit in bytes; node's own (16 KiB) when not given. The suites raise it to reach the app with huge headers. */
  maxHeaderSize?: number;
}

/**
 * Connection limits: a client must send a request's headers within 10 s and the whole request
 * within 15 s, both counted from the request's first byte, so neither applies to a connection that
 * sits idle between requests. An idle keep-alive connection is closed after KEEP_ALIVE_TIMEOUT
 * (75 s by default): longer than the idle timeout of the proxy or load balancer in front (60 s for
 * nginx's upstream keep-alive and AWS's load balancers), so the proxy, never this server, closes
 * an idle connection first and never sends a request on one this server has just closed.
 * node:http checks these every connectionsCheckingInterval, 30 s by default, so a silent
 * connection lived 30 to 80 s: checked every second here, while any connection is open.
 */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 15_000;
const DEFAULT_KEEP_ALIVE_TIMEOUT_S = 75;
const CHECK_INTERVAL_MS = 1_000;

/**
 * The one front: a node:http server that mints each request's context once, dispatches it by path
 * (a path's handler, a prefix's, else the REST edge), and hands every answer to the one finish
 * (finish.ts). It answers odd targets, refused expectations and GET /metrics itself, through the
 * same finish, and gives parser-level refusals (431, 408, 413, 400), CONNECT and connections over
 * the cap the contract's body on the raw socket.
 */
export function createHttpServer(options: HttpServerOptions): Server {
  const { front } = options;
  const refused = new WeakSet<Socket>();
  const limits = {
    headersTimeout: HEADERS_TIMEOUT_MS,
    requestTimeout: REQUEST_TIMEOUT_MS,
    connectionsCheckingInterval: CHECK_INTERVAL_MS,
    ...(options.maxHeaderSize === undefined ? {} : { maxHeaderSize: options.maxHeaderSize }),
  };
  const listener = frontListener(options, refused);
  const server = createServer({ requireHostHeader: false, ...limits }, listener);
  server.on('checkContinue', listener.checkContinue);
  server.keepAliveTimeout = (options.keepAliveTimeoutSeconds ?? DEFAULT_KEEP_ALIVE_TIMEOUT_S) * 1000;
  answerClientErrors(server, front, refused, options.logger);
  refuseConnect(server, front, refused);
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
    answerRefusal(
      front,
      refused,
      res,
      new ApiError('INVALID_REQUEST', 'The only expectation this server meets is Expect: 100-continue.', { param: 'Expect' }),
    );
  });
  capConnections(server, front, options.maxConnections ?? Infinity, refused, options.logger);
  // With no client connected, neither the timeouts' check nor the loop-delay sampler has anything to measure.
  whileConnected(server, [connectionsChecker(server, CHECK_INTERVAL_MS), front.metrics.loopDelay]);
  return server;
}

/** The front's request listener, which handler a path goes to, and the listener of requests that expect 100 Continue. */
export type FrontListener = RequestListener & { handlerOf(pathname: string): FrontHandler; checkContinue: RequestListener };

/** Mints the request's context, answers an odd target, else hands the request to its path's handler. */
export function frontListener(options: HttpServerOptions, refused: WeakSet<Socket> = new WeakSet()): FrontListener {
  const { front } = options;
  const serveMetrics: FrontHandler = (req, res, context, started) => {
    void metricsAnswer(req, context, options).then((parts) => front.finish.send(req, res, METRICS_PLACE, context, parts, started));
  };
  /** Paths with a handler of their own; a new one is a path and its handler here. */
  const handlers = new Map<string, FrontHandler>([
    [GRAPHQL_PATH, front.graphql],
    [METRICS_PATH, serveMetrics],
    [MCP_PATH, front.mcp],
  ]);
  const handlerOf = (pathname: string): FrontHandler =>
    handlers.get(pathname) ??
    (isAccountPath(pathname) || pathname.startsWith(ASSETS_PREFIX) || isFrontDoorPath(pathname)
      ? front.pages
      : isOAuthPath(pathname)
        ? front.oauth
        : front.edge);
  const serve = (req: IncomingMessage, res: ServerResponse, expectsContinue: boolean) => {
    // A connection answered on its socket (over the cap, a refused request): nothing it sends is served.
    if (refused.has(req.socket)) return;
    const started = performance.now();
    const context = front.contextOf(originOf(req));
    // As sent: an absolute-form target is rewritten to its path and its authority below.
    const target = req.url ?? '';
    const sentHost = req.headers.host;
    try {
      const odd = oddRequestAnswer(req, context);
      if (odd) {
        // A refusal closes the connection: requests already pipelined behind it are not served.
        if (odd.status >= 400) refused.add(req.socket);
        return void front.finish.send(req, res, OTHER_PLACE, context, odd, started);
      }
      const pathname = pathOf(req.url);
      // A preflight of /graphql, answered here for whichever handler runs GraphQL.
      if (req.method === 'OPTIONS' && pathname === GRAPHQL_PATH)
        return void front.finish.send(req, res, GRAPHQL_PLACE, context, graphQLPreflightParts(), started);
      // Another spelling of /metrics is a path no route has: the edge answers it 404.
      const handler = pathname === METRICS_PATH && !isExactTarget(target, sentHost, METRICS_PATH) ? front.edge : handlerOf(pathname);
      if (expectsContinue) serveExpectingContinue(front.finish, refused, { req, res, context, started, pathname }, handler);
      else handler(req, res, context, started);
    } catch (error) {
      // A handler that throws before it answers: the contract's INTERNAL error, like any other failure.
      front.finish.unexpected(req, res, OTHER_PLACE, context, started)(error);
    }
  };
  const listener = (req: IncomingMessage, res: ServerResponse) => serve(req, res, false);
  /** A request with `Expect: 100-continue` (node:http's checkContinue): continued only once it may be served (expect-continue.ts). */
  const checkContinue = (req: IncomingMessage, res: ServerResponse) => serve(req, res, true);
  return Object.assign(listener, { handlerOf, checkContinue });
}

const ASSETS_PREFIX = `${ASSETS_PATH}/`;
const METRICS_PLACE: AnswerPlace = { label: routeLabel(METRICS_PATH), cors: undefined, standsWithoutLimits: true };

/** GET /metrics for those METRICS lets read it; anyone else gets the answer of a path that does not exist: nothing tells them it does. */
async function metricsAnswer(req: IncomingMessage, context: HttpRequestContext, options: HttpServerOptions): Promise<ResponseParts> {
  if (!mayReadMetrics(req, options)) {
    return errorParts(new ApiError('NOT_FOUND', "There is no route '/metrics'. See GET /openapi.json."), context);
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return errorParts(
      new ApiError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on '/metrics'; use GET.`, { allow: ['GET', 'HEAD'] }),
      context,
    );
  }
  try {
    const text = await options.front.metrics.render();
    return {
      status: 200,
      headers: {
        'cache-control': 'no-store',
        'content-type': options.front.metrics.contentType,
        'content-length': String(Buffer.byteLength(text)),
      },
      body: text,
    };
  } catch (error) {
    options.logger.error({ err: error, requestId: context.requestId }, 'metrics could not be collected');
    return errorParts(new ApiError('INTERNAL', 'The metrics could not be collected.'), context);
  }
}

function mayReadMetrics(req: IncomingMessage, options: HttpServerOptions): boolean {
  const access = options.metricsAccess;
  if (access.mode === 'public') return true;
  if (access.mode === 'off') return false;
  if (access.mode === 'token') return bearerMatches(req.headers.authorization, access.token);
  const forwarded = req.headers['x-forwarded-for'];
  // The socket's address; X-Forwarded-For only through proxies TRUST_PROXY names.
  return isLoopback(clientIp(req.socket.remoteAddress ?? '', typeof forwarded === 'string' ? forwarded : null, options.trust));
}

function isLoopback(ip: string): boolean {
  return ip === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(ip);
}

/** Compared as SHA-256 digests with timingSafeEqual: the time taken says nothing about the token. */
function bearerMatches(header: string | undefined, token: string): boolean {
  const sent = /^bearer +(\S+)$/i.exec(header?.trim() ?? '')?.[1] ?? '';
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(sent), digest(token));
}
