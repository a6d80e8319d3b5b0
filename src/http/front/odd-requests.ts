import type { IncomingMessage } from 'node:http';
import { ApiError } from '../../domain/errors';
import type { ResponseParts } from '../answer/answer-parts';
import { errorParts } from '../answer/errors';
import type { AnswerPlace } from './finish';
import type { HttpRequestContext } from './request-context';

/** Answers off every route: counted as `other`. */
export const OTHER_PLACE: AnswerPlace = { label: 'other', cors: undefined, standsWithoutLimits: true };

/** The methods this server answers somewhere: what `OPTIONS *` and a refused CONNECT name. */
export const SERVER_METHODS = ['GET', 'HEAD', 'POST', 'OPTIONS'] as const;

/**
 * Requests node:http hands over but that no handler should see as they are, answered in the
 * contract's shape: an absolute-form target (what proxies send) is served as its path, `*` is
 * answered for OPTIONS and refused otherwise, any other target that is not a path is refused, and
 * an HTTP/1.1 request without Host is refused (RFC 9112 3.2). The answer, or undefined to serve the request.
 */
export function oddTargetAnswer(req: IncomingMessage, context: HttpRequestContext): ResponseParts | undefined {
  const url = req.url ?? '';
  if (url.charCodeAt(0) === 0x2f) return missingHost(req, context);
  if (/^https?:\/\//i.test(url)) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return refusalParts(new ApiError('INVALID_REQUEST', 'The request target is not a valid URL.'), context);
    }
    // RFC 9112 3.2.2: with an absolute-form target, its authority is the Host.
    req.url = `${parsed.pathname}${parsed.search}`;
    req.headers.host = parsed.host;
    return undefined;
  }
  if (url === '*') {
    if (req.method !== 'OPTIONS') return refusalParts(new ApiError('INVALID_REQUEST', `The request target '*' is only for OPTIONS; ${req.method} needs a path.`), context);
    const body = JSON.stringify({ data: { methods: SERVER_METHODS } });
    return { status: 200, headers: { allow: SERVER_METHODS.join(', '), 'cache-control': 'no-store', 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(body)) }, body };
  }
  return refusalParts(new ApiError('INVALID_REQUEST', 'The request target must be a path starting with /.'), context);
}

function missingHost(req: IncomingMessage, context: HttpRequestContext): ResponseParts | undefined {
  if (req.headers.host !== undefined || req.httpVersion !== '1.1') return undefined;
  return refusalParts(new ApiError('INVALID_REQUEST', 'An HTTP/1.1 request needs a Host header.', { param: 'Host' }), context);
}

/** The contract's error as the answer, then the connection closes (what follows on it cannot be trusted). */
export function refusalParts(error: ApiError, context: HttpRequestContext): ResponseParts {
  const parts = errorParts(error, context);
  parts.headers['connection'] = 'close';
  return parts;
}
