import type { Endpoint } from './endpoint';
import { etagMatches, strongEtag } from './shared-resource';

/** An answer before the edge writes it (node:http), or as a Fetch Response for Yoga's plugins. */
export interface ResponseParts {
  status: number;
  /** Lower-case names: both lanes write the same fields, and a later one never doubles an earlier one. */
  headers: Record<string, string>;
  /** Pre-built answers are kept as bytes: nothing to encode per request. */
  body: string | Buffer | null;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * An endpoint's `{"data": ...}` answer with its Cache-Control, for both executions; on a route with
 * `etag` also a strong ETag of the exact bytes (`etag`, when the caller kept it with the bytes), and
 * 304 Not Modified, with the same validator and caching fields but no body, when the client already
 * has them.
 */
export function restSuccessParts(endpoint: Endpoint, body: string | Buffer, ifNoneMatch: string | null, etag?: string): ResponseParts {
  const headers: Record<string, string> = { 'content-type': JSON_TYPE, 'cache-control': endpoint.cacheControl(), 'content-length': String(Buffer.byteLength(body)) };
  if (!endpoint.route.etag) return { status: 200, headers, body };
  headers['etag'] = etag ?? strongEtag(body);
  if (!etagMatches(ifNoneMatch, headers['etag'])) return { status: 200, headers, body };
  delete headers['content-type'];
  return { status: 304, headers, body: null };
}

/**
 * A REST answer's text without `"param":null` and `"exchangeRate":null`: GraphQL must answer a
 * selected nullable field, but a REST error leaves `param` out when no one input is at fault, in a
 * batch item as at the top level, and a unit conversion has an `exchangeRate` only when a unit
 * expression names a currency, and a quantity's counted `text` only when `lang` asked for it (a
 * plain conversion's answer is what it always was). Safe on the
 * text: inside a JSON string every `"` is escaped, so the sequences only occur as members.
 */
export function withoutNullParams(json: string): string {
  let text = json.includes(',"param":null') ? json.replaceAll(',"param":null', '') : json;
  if (text.includes(',"text":null')) text = text.replaceAll(',"text":null', '');
  return text.includes(',"exchangeRate":null') ? text.replaceAll(',"exchangeRate":null', '') : text;
}

export function lowerCased(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  // for…in over a plain record: no [name, value] array per header (the limit headers, on every answer).
  for (const name in headers) if (Object.hasOwn(headers, name)) out[name.toLowerCase()] = headers[name]!;
  return out;
}

/** The same answer as a Fetch Response, for what Yoga answers (pages, GraphiQL, SOFA's errors). */
export function toResponse(parts: ResponseParts): Response {
  const body = typeof parts.body === 'string' || parts.body === null ? parts.body : new Uint8Array(parts.body);
  return new Response(body, { status: parts.status, headers: parts.headers });
}
