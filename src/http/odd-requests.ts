import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { ApiError } from '../domain/errors';
import { rawErrorResponse, writeRestError } from './errors';
import { BASELINE_HEADERS } from './use-security-headers';

/** The methods this server answers somewhere: what `OPTIONS *` and a refused CONNECT name. */
export const SERVER_METHODS = ['GET', 'HEAD', 'POST', 'OPTIONS'] as const;

/**
 * Requests node:http hands over but that neither the edge nor Yoga should see as they are, answered in the
 * contract's shape: an absolute-form target (what proxies send) is served as its path, `*` is
 * answered for OPTIONS and refused otherwise, any other target that is not a path is refused, and
 * an HTTP/1.1 request without Host is refused (RFC 9112 3.2). Returns true when it answered.
 */
export function answerOddTarget(req: IncomingMessage, res: ServerResponse): boolean {
  const url = req.url ?? '';
  if (url.charCodeAt(0) === 0x2f) return missingHost(req, res);
  if (/^https?:\/\//i.test(url)) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return refuse(res, new ApiError('INVALID_REQUEST', 'The request target is not a valid URL.'));
    }
    // RFC 9112 3.2.2: with an absolute-form target, its authority is the Host.
    req.url = `${parsed.pathname}${parsed.search}`;
    req.headers.host = parsed.host;
    return false;
  }
  if (url === '*') {
    if (req.method !== 'OPTIONS') return refuse(res, new ApiError('INVALID_REQUEST', `The request target '*' is only for OPTIONS; ${req.method} needs a path.`));
    const body = JSON.stringify({ data: { methods: SERVER_METHODS } });
    answer(res, 200, { allow: SERVER_METHODS.join(', '), 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(body)) }, body);
    return true;
  }
  return refuse(res, new ApiError('INVALID_REQUEST', 'The request target must be a path starting with /.'));
}

function missingHost(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.headers.host !== undefined || req.httpVersion !== '1.1') return false;
  return refuse(res, new ApiError('INVALID_REQUEST', 'An HTTP/1.1 request needs a Host header.', { param: 'Host' }));
}

/** The contract's error as the answer, then the connection closes (what follows on it cannot be trusted). */
export function refuse(res: ServerResponse, error: ApiError): true {
  writeRestError(res, error, randomUUID(), { connection: 'close' });
  return true;
}

function answer(res: ServerResponse, status: number, headers: Record<string, string>, body: string): void {
  res.writeHead(status, STATUS_CODES[status], { ...BASELINE_HEADERS, ...headers });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

/**
 * Gives every status line its reason phrase: Yoga's node adapter passes the Fetch Response's
 * statusText, which is empty unless set, and node:http then writes `HTTP/1.1 404 ` with nothing after.
 */
export function withReasonPhrase(res: ServerResponse): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, status: number, ...rest: unknown[]) {
    if (rest[0] === '' || rest[0] === undefined) rest[0] = STATUS_CODES[status] ?? 'Unknown';
    return (writeHead as (...args: unknown[]) => ServerResponse).call(this, status, ...rest);
  } as ServerResponse['writeHead'];
}

/**
 * CONNECT (node:http emits it apart and dropped the connection without a word) gets 405 with
 * `Allow`; an Expect other than 100-continue (node answered a bare 417) gets the contract's 400.
 * Both close the connection.
 */
export function answerOddMethods(server: Server, logger: Logger, onAnswer: (status: number) => void): void {
  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    const requestId = randomUUID();
    const error = new ApiError('METHOD_NOT_ALLOWED', `CONNECT is not allowed: this server is not a proxy; use ${SERVER_METHODS.join(', ')}.`, { allow: SERVER_METHODS });
    logger.info({ requestId, status: error.status }, 'CONNECT refused');
    onAnswer(error.status);
    socket.on('error', () => socket.destroy());
    socket.end(rawErrorResponse(error, requestId));
    setTimeout(() => socket.destroy(), 2_000).unref();
  });
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
    onAnswer(400);
    refuse(res, new ApiError('INVALID_REQUEST', 'The only expectation this server meets is Expect: 100-continue.', { param: 'Expect' }));
  });
}
