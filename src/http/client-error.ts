import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { ApiError, type ErrorCode } from '../domain/errors';
import { errorBody } from '../graphql/error-body';
import { errorHeaders } from './error-headers';

/** The headers every answer carries (contract section 10), for answers written outside Yoga. */
export const BASELINE_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};

/** What node:http's parser refused, as the contract's codes (the rest is a malformed request). */
const PARSER_ERRORS: Readonly<Record<string, [ErrorCode, string]>> = {
  HPE_HEADER_OVERFLOW: ['HEADERS_TOO_LARGE', 'The request line and headers are larger than this server accepts (16 KiB).'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: ['PAYLOAD_TOO_LARGE', 'The chunk extensions of the request body are too large.'],
  ERR_HTTP_REQUEST_TIMEOUT: ['REQUEST_TIMEOUT', 'The request was not received in time.'],
};
const MALFORMED: [ErrorCode, string] = ['INVALID_REQUEST', 'The request is not valid HTTP/1.1.'];

/** The raw bytes of an error answer with the contract's body: the connection is closed after it. */
export function rawErrorResponse(error: ApiError, requestId: string): string {
  const body = JSON.stringify({ error: errorBody(error, requestId) });
  const headers = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
    'x-request-id': requestId,
    ...BASELINE_HEADERS,
    ...errorHeaders(error),
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n${lines.join('\r\n')}\r\n\r\n${body}`;
}

/**
 * Replaces node:http's bare parser answers (400, 408, 413, 431 with empty bodies) with the
 * contract's JSON error, when the socket can still take one: node's own rule, no answer once a
 * response on that connection has begun.
 */
export function answerClientErrors(server: Server, logger: Logger, onError?: (status: number) => void): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    const pending = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || pending?.headersSent) {
      socket.destroy();
      return;
    }
    const [code, message] = PARSER_ERRORS[error.code ?? ''] ?? MALFORMED;
    const requestId = randomUUID();
    const apiError = new ApiError(code, message);
    logger.info({ requestId, status: apiError.status, reason: error.code }, 'request refused by the HTTP parser');
    onError?.(apiError.status);
    // A FIN after the answer, so the client reads it; then the socket goes, whatever the client still sends.
    socket.end(rawErrorResponse(apiError, requestId));
    setTimeout(() => socket.destroy(), 2_000).unref();
  });
}
