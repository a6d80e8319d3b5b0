import { errorBody, type ApiError } from '../domain/errors';
import type { RestRoute } from './routes';
import { etagMatches, strongEtag } from './shared-resource';

/** A REST answer before it is written, by Yoga (as a Response) or by the fast lane (node:http). */
export interface ResponseParts {
  status: number;
  /** Lower-case names: both lanes write the same fields, and a later one never doubles an earlier one. */
  headers: Record<string, string>;
  body: string | null;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** `{"error": {...}}` with the table's status, the error's own headers, never cached. */
export function restErrorParts(error: ApiError, requestId: string): ResponseParts {
  const body = JSON.stringify({ error: errorBody(error, requestId) });
  return {
    status: error.status,
    headers: { 'content-type': JSON_TYPE, 'cache-control': 'no-store', 'content-length': String(Buffer.byteLength(body)), ...lowerCased(error.headers) },
    body,
  };
}

/**
 * A route's `{"data": ...}` answer with its Cache-Control; on a shared route also a strong ETag of
 * the exact bytes, and 304 Not Modified when the client already has them.
 */
export function restSuccessParts(route: RestRoute, body: string, cache: string, ifNoneMatch: string | null): ResponseParts {
  const headers: Record<string, string> = { 'content-type': JSON_TYPE, 'cache-control': cache, 'content-length': String(Buffer.byteLength(body)) };
  if (!route.shared) return { status: 200, headers, body };
  const etag = strongEtag(body);
  headers['etag'] = etag;
  if (!etagMatches(ifNoneMatch, etag)) return { status: 200, headers, body };
  delete headers['content-type'];
  return { status: 304, headers, body: null };
}

export function lowerCased(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

/** The same answer as a Fetch Response, for the Yoga lane. */
export function toResponse(parts: ResponseParts): Response {
  return new Response(parts.body, { status: parts.status, headers: parts.headers });
}
