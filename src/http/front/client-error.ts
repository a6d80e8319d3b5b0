import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { ApiError, type ErrorCode } from '../../domain/errors';
import { rawErrorResponse } from '../answer/errors';

/** What node:http's parser refused, as the contract's codes (the rest is a malformed request). */
const PARSER_ERRORS: Readonly<Record<string, [ErrorCode, string]>> = {
  HPE_HEADER_OVERFLOW: ['HEADERS_TOO_LARGE', 'The request line and headers are larger than this server accepts (16 KiB).'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: ['PAYLOAD_TOO_LARGE', 'The chunk extensions of the request body are too large.'],
  ERR_HTTP_REQUEST_TIMEOUT: ['REQUEST_TIMEOUT', 'The request was not received in time.'],
};
const MALFORMED: [ErrorCode, string] = ['INVALID_REQUEST', 'The request is not valid HTTP/1.1.'];

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
