import { IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { ApiError, type ErrorCode } from '../../domain/errors';
import type { Finish } from './finish';
import { OTHER_PLACE, refusalParts, SERVER_METHODS } from './odd-requests';
import { originOf, type RequestOrigin, type HttpRequestContext } from './request-context';

/** What an answer on a socket is made with: the request's context and the one finish (the front's own). */
interface Front {
  contextOf(origin: RequestOrigin): HttpRequestContext;
  finish: Finish;
}

/**
 * The answers node:http leaves no response object for: a request its parser refused, CONNECT, a
 * connection over the cap. Each gets a ServerResponse of node's own on the socket and leaves
 * through the one finish like every other answer (security headers, request id, reason phrase,
 * one metric, one access-log line with its code); then the connection closes. `refused` holds the
 * sockets so answered: nothing they send afterwards is served.
 */
export function answerOnSocket(
  front: Front,
  refused: WeakSet<Socket>,
  socket: Socket,
  error: ApiError,
  req = new IncomingMessage(socket),
): void {
  socket.on('error', () => socket.destroy());
  if (!socket.writable) return void socket.destroy();
  const res = new ServerResponse(req);
  res.assignSocket(socket);
  answerRefusal(front, refused, res, error);
}

/** The refusal as `res`'s answer, through the finish; then the connection closes and nothing more on it is served. */
export function answerRefusal(front: Front, refused: WeakSet<Socket>, res: ServerResponse, error: ApiError): void {
  const socket = res.req.socket;
  refused.add(socket);
  // A FIN after the answer, so the client reads it; then the socket goes, whatever the client still sends.
  res.once('finish', () => {
    socket.end();
    setTimeout(() => socket.destroy(), 2_000).unref();
  });
  const context = front.contextOf(originOf(res.req));
  void front.finish.send(res.req, res, OTHER_PLACE, context, refusalParts(error, context), performance.now());
}

/** What node:http's parser refused, as the contract's codes (the rest is a malformed request). */
const PARSER_ERRORS: Readonly<Record<string, [ErrorCode, string]>> = {
  HPE_HEADER_OVERFLOW: ['HEADERS_TOO_LARGE', 'The request line and headers are larger than this server accepts (16 KiB).'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: ['PAYLOAD_TOO_LARGE', 'The chunk extensions of the request body are too large.'],
  ERR_HTTP_REQUEST_TIMEOUT: ['REQUEST_TIMEOUT', 'The request was not received in time.'],
};
const MALFORMED: [ErrorCode, string] = ['INVALID_REQUEST', 'The request is not valid HTTP/1.1.'];

/**
 * Replaces node:http's bare parser answers (400, 408, 413, 431 with empty bodies) with the
 * contract's error. Node's rule: no answer on a connection whose response has begun, or whose
 * request was whole (the error is a later request's, and an answer now would be read as that
 * one's); the connection closes. Nor on a connection whose last request was answered before its
 * body was whole (a 413 whose rest is read and dropped): the body that stalls, ends early or breaks
 * is that answered request's, which gets no second answer. A request whose body or time failed
 * while it was being received has its handler already (see inFlight).
 */
export function answerClientErrors(server: Server, front: Front, refused: WeakSet<Socket>, logger: Logger): void {
  const latest = new WeakMap<Socket, IncomingMessage>();
  server.on('request', (req: IncomingMessage) => latest.set(req.socket, req));
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (refused.has(socket)) return;
    const pending = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (error.code === 'ECONNRESET' || pending?.headersSent || pending?.req.complete) return void socket.destroy();
    if (!pending && latest.get(socket)?.complete === false) return void socket.destroy();
    logger.debug({ reason: error.code }, 'request refused by the HTTP parser');
    const [code, message] = PARSER_ERRORS[error.code ?? ''] ?? MALFORMED;
    if (pending) return inFlight(front, refused, pending, new ApiError(code, message));
    answerOnSocket(front, refused, socket, new ApiError(code, message));
  });
}

/**
 * The refusal of a request whose handler runs. Its body will not come: a handler reading it gets
 * the refusal as its answer; a handler that answers without it (a GET) answers, and the
 * connection closes after. Decided once this turn's answers are written (outbox.ts).
 */
function inFlight(front: Front, refused: WeakSet<Socket>, res: ServerResponse, error: ApiError): void {
  const socket = res.req.socket;
  refused.add(socket);
  setImmediate(() => {
    const reading = res.req.readableFlowing === true || res.req.listenerCount('readable') > 0;
    if (!res.headersSent && reading) return answerRefusal(front, refused, res, error);
    if (res.writableFinished) socket.end();
    else res.once('finish', () => socket.end());
  });
}

/** CONNECT (node:http emits it apart and drops the connection without a word) gets 405 with `Allow`. */
export function refuseConnect(server: Server, front: Front, refused: WeakSet<Socket>): void {
  server.on('connect', (req: IncomingMessage, socket: Socket) => {
    const error = new ApiError(
      'METHOD_NOT_ALLOWED',
      `CONNECT is not allowed: this server is not a proxy; use ${SERVER_METHODS.join(', ')}.`,
      { allow: SERVER_METHODS },
    );
    answerOnSocket(front, refused, socket, error, req);
  });
}

/**
 * Past `max` open connections, a new one gets the contract's 503 (with Retry-After) and is closed,
 * rather than node's silent drop (server.maxConnections) or every file descriptor in use. Runs
 * before node:http's own connection listener, which still parses what the client sends: the
 * request handler ignores a refused socket.
 */
export function capConnections(server: Server, front: Front, max: number, refused: WeakSet<Socket>, logger: Logger): void {
  let open = 0;
  let warned = false;
  server.prependListener('connection', (socket: Socket) => {
    open += 1;
    socket.once('close', () => {
      open -= 1;
      if (open < max) warned = false;
    });
    if (open <= max) return;
    if (!warned) {
      warned = true;
      logger.warn({ open, max }, 'connection limit reached (MAX_CONNECTIONS): refusing new connections with 503');
    }
    answerOnSocket(
      front,
      refused,
      socket,
      new ApiError('SERVICE_UNAVAILABLE', 'The server has too many open connections; try again shortly.', { retryAfterSeconds: 1 }),
    );
  });
}
