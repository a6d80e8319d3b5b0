import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { MetricsAccess } from '../config';
import { ApiError } from '../domain/errors';
import type { Metrics } from '../metrics';
import type { Socket } from 'node:net';
import { answerClientErrors } from './client-error';
import { rawErrorResponse, writeRestError } from './errors';
import { BASELINE_HEADERS } from './use-security-headers';
import { answerOddMethods, answerOddTarget, withReasonPhrase } from './odd-requests';
import { clientIp, type TrustProxy } from '../domain/client-ip';
import type { Edge } from './edge';
import { METRICS_PATH, routeLabel } from './routes';
import { pathOf } from './target';

export interface HttpServerOptions {
  /** What the edge leaves but /metrics (GraphQL, GraphiQL, the account pages): the Yoga app. */
  handler: RequestListener;
  /**
   * Tried first: it answers the requests it owns (every REST route, and every path off the table),
   * records their request metrics itself when it writes them, and returns true; for any other
   * request it returns false and the handler serves it.
   */
  edge: Edge;
  logger: Logger;
  metrics: Metrics;
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
 * connection lived 30 to 80 s: checked every second here.
 */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 15_000;
const DEFAULT_KEEP_ALIVE_TIMEOUT_S = 75;
const CHECK_INTERVAL_MS = 1_000;

/**
 * The node:http server in front of the app: it hands the edge what it owns, times every other
 * request for the metrics (by route template, never the raw URL), answers GET /metrics itself, and
 * gives parser-level refusals (431, 408, 413, 400) the contract's body.
 */
export function createHttpServer(options: HttpServerOptions): Server {
  const refused = new WeakSet<Socket>();
  const limits = { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: CHECK_INTERVAL_MS, ...(options.maxHeaderSize === undefined ? {} : { maxHeaderSize: options.maxHeaderSize }) };
  const server = createServer({ requireHostHeader: false, ...limits }, (req, res) => {
    // A connection over the cap was answered 503 already: nothing it sends is served.
    if (refused.has(req.socket)) return;
    if (answerOddTarget(req, res)) {
      options.metrics.request('other', 'other', res.statusCode, 0);
      return;
    }
    if (options.edge(req, res)) return;
    withReasonPhrase(res);
    const started = performance.now();
    const pathname = pathOf(req.url);
    const route = routeLabel(pathname);
    res.once('close', () => options.metrics.request(route, req.method ?? '', res.statusCode, (performance.now() - started) / 1000));
    if (pathname === METRICS_PATH) void serveMetrics(req, res, options);
    else options.handler(req, res);
  });
  server.keepAliveTimeout = (options.keepAliveTimeoutSeconds ?? DEFAULT_KEEP_ALIVE_TIMEOUT_S) * 1000;
  const other = (status: number) => options.metrics.request('other', 'other', status, 0);
  answerClientErrors(server, options.logger, other);
  answerOddMethods(server, options.logger, other);
  capConnections(server, options.maxConnections ?? Infinity, refused, options.logger, other);
  return server;
}

/**
 * Past `max` open connections, a new one gets the contract's 503 (with Retry-After) and is closed,
 * rather than node's silent drop (server.maxConnections) or every file descriptor in use. Runs
 * before node:http's own connection listener, which still parses what the client sends: the
 * request handler ignores a refused socket.
 */
function capConnections(server: Server, max: number, refused: WeakSet<Socket>, logger: Logger, onAnswer: (status: number) => void): void {
  let open = 0;
  let warned = false;
  server.prependListener('connection', (socket: Socket) => {
    open += 1;
    socket.once('close', () => {
      open -= 1;
      if (open < max) warned = false;
    });
    if (open <= max) return;
    refused.add(socket);
    if (!warned) {
      warned = true;
      logger.warn({ open, max }, 'connection limit reached (MAX_CONNECTIONS): refusing new connections with 503');
    }
    onAnswer(503);
    const error = new ApiError('SERVICE_UNAVAILABLE', 'The server has too many open connections; try again shortly.', { retryAfterSeconds: 1 });
    socket.on('error', () => socket.destroy());
    socket.end(rawErrorResponse(error, randomUUID()));
    setTimeout(() => socket.destroy(), 2_000).unref();
  });
}

async function serveMetrics(req: IncomingMessage, res: ServerResponse, options: HttpServerOptions): Promise<void> {
  const requestId = randomUUID();
  // Anyone not allowed gets the answer of a path that does not exist: nothing tells them it does.
  if (!mayReadMetrics(req, options)) {
    return writeRestError(res, new ApiError('NOT_FOUND', "There is no route '/metrics'. See GET /openapi.json."), requestId);
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return writeRestError(res, new ApiError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on '/metrics'; use GET.`, { allow: ['GET', 'HEAD'] }), requestId);
  }
  try {
    const text = await options.metrics.render();
    res.writeHead(200, { ...BASELINE_HEADERS, 'content-type': options.metrics.contentType, 'content-length': Buffer.byteLength(text), 'x-request-id': requestId });
    res.end(req.method === 'HEAD' ? undefined : text);
  } catch (error) {
    options.logger.error({ err: error, requestId }, 'metrics could not be collected');
    writeRestError(res, new ApiError('INTERNAL', 'The metrics could not be collected.'), requestId);
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
