import type { Endpoint } from './endpoint';
import { etagMatches, strongEtag } from '../answer/shared-resource';
import type { ResponseParts } from '../answer/answer-parts';

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
 * A SOFA answer's `{"data": ...}` text without the members the schema declares REST leaves out when
 * null (REST_OMITS_NULL): what the direct execution's serialiser leaves out as it writes.
 */
export function withoutOmittedNulls(json: string, omitted: ReadonlySet<string>): string {
  return JSON.stringify(JSON.parse(json), (key, value: unknown) => (value === null && omitted.has(key) ? undefined : value));
}
