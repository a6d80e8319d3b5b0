import type { IncomingMessage } from 'node:http';
import { ApiError } from '../../domain/errors';
import type { ResponseParts } from '../answer/answer-parts';
import { errorParts } from '../answer/errors';
import { codingsBesides } from './body';
import type { AnswerPlace } from './finish';
import type { HttpRequestContext } from './request-context';

/** Answers off every route: counted as `other`. */
export const OTHER_PLACE: AnswerPlace = { label: 'other', cors: undefined, standsWithoutLimits: true };

/** The methods this server answers somewhere: what `OPTIONS *` and a refused CONNECT name. */
export const SERVER_METHODS = ['GET', 'HEAD', 'POST', 'OPTIONS'] as const;

/**
 * Requests node:http hands over but that no handler should see as they are, answered in the
 * contract's shape: an absolute-form target (what proxies send) is served as its path, `*` is
 * answered for OPTIONS and refused otherwise, any other target that is not a path is refused, an
 * HTTP/1.1 request without Host, with more than one, or with one that is not a host and port is
 * refused (RFC 9112 3.2), and so is a body in a transfer coding other than chunked. The answer, or
 * undefined to serve the request. Every refusal closes the connection.
 */
export function oddRequestAnswer(req: IncomingMessage, context: HttpRequestContext): ResponseParts | undefined {
  return targetAnswer(req, context) ?? transferCodingAnswer(req, context);
}

function targetAnswer(req: IncomingMessage, context: HttpRequestContext): ResponseParts | undefined {
  const url = req.url ?? '';
  if (url.charCodeAt(0) === 0x2f) return hostAnswer(req, context);
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
    if (req.method !== 'OPTIONS')
      return refusalParts(
        new ApiError('INVALID_REQUEST', `The request target '*' is only for OPTIONS; ${req.method} needs a path.`),
        context,
      );
    const body = JSON.stringify({ data: { methods: SERVER_METHODS } });
    return {
      status: 200,
      headers: {
        allow: SERVER_METHODS.join(', '),
        'cache-control': 'no-store',
        'content-type': 'application/json; charset=utf-8',
        'content-length': String(Buffer.byteLength(body)),
      },
      body,
    };
  }
  return refusalParts(new ApiError('INVALID_REQUEST', 'The request target must be a path starting with /.'), context);
}

/**
 * RFC 3986's `host [ ":" port ]`: an IP literal in brackets or a reg-name (no `/`, `?`, `#`, `@` or
 * space). The host must also be one the URL standard takes (not empty, a port up to 65535, a valid
 * IPv4 or IPv6 address, no percent-encoded delimiter): the pages build their URL from it.
 */
const HOST_AND_PORT = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]*)(?::\d*)?$/;

function hostAnswer(req: IncomingMessage, context: HttpRequestContext): ResponseParts | undefined {
  const host = req.headers.host;
  if (host === undefined) {
    if (req.httpVersion !== '1.1') return undefined;
    return refusalParts(new ApiError('INVALID_REQUEST', 'An HTTP/1.1 request needs a Host header.', { param: 'Host' }), context);
  }
  if (HOST_AND_PORT.test(host) && URL.canParse(`http://${host}/`) && !repeatsHost(req.rawHeaders)) return undefined;
  return refusalParts(
    new ApiError('INVALID_REQUEST', 'The request needs one Host header holding a host name or address and an optional port.', {
      param: 'Host',
    }),
    context,
  );
}

/** node:http keeps the first of several Host lines and drops the rest; the request is ambiguous. */
function repeatsHost(raw: readonly string[]): boolean {
  let seen = false;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.length !== 4 || raw[i]!.toLowerCase() !== 'host') continue;
    if (seen) return true;
    seen = true;
  }
  return false;
}

/**
 * node:http decodes chunked and reads any other transfer coding (gzip, deflate...) as if absent:
 * such a body is refused rather than read as other bytes than the client meant (RFC 9112 6.1).
 */
function transferCodingAnswer(req: IncomingMessage, context: HttpRequestContext): ResponseParts | undefined {
  const header = req.headers['transfer-encoding'];
  if (header === undefined) return undefined;
  const other = codingsBesides(header, 'chunked');
  if (other.length === 0) return undefined;
  const message = `The request body has Transfer-Encoding ${other.join(', ')}; only chunked is accepted: send the body as it is, chunked or with a Content-Length.`;
  return refusalParts(new ApiError('INVALID_REQUEST', message, { param: 'Transfer-Encoding' }), context);
}

/** The contract's error as the answer, then the connection closes (what follows on it cannot be trusted). */
export function refusalParts(error: ApiError, context: HttpRequestContext): ResponseParts {
  const parts = errorParts(error, context);
  parts.headers['connection'] = 'close';
  return parts;
}
