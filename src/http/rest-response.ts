import type { Endpoint } from './endpoint';
import { etagMatches, strongEtag } from './shared-resource';
import type { ResponseParts } from './answer-parts';

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
