import type { Endpoint } from './endpoint';
import { strongEtag, validatedParts } from '../answer/shared-resource';
import { JSON_CONTENT_TYPE, type ResponseParts } from '../answer/answer-parts';

/**
 * An endpoint's `{"data": ...}` answer with its Cache-Control, for both executions; on a route with
 * `etag` also a strong ETag of the exact bytes (`etag`, when the caller kept it with the bytes), and
 * 304 Not Modified, with the same validator and caching fields but no body, when the client already
 * has them.
 */
export function restSuccessParts(endpoint: Endpoint, body: string | Buffer, ifNoneMatch: string | null, etag?: string): ResponseParts {
  const headers: Record<string, string> = {
    'content-type': JSON_CONTENT_TYPE,
    'cache-control': endpoint.cacheControl(),
    'content-length': String(Buffer.byteLength(body)),
  };
  if (!endpoint.route.etag) return { status: 200, headers, body };
  return validatedParts(headers, body, etag ?? strongEtag(body), ifNoneMatch);
}

/**
 * A SOFA answer's `{"data": ...}` text without the members the schema declares REST leaves out when
 * null (REST_OMITS_NULL): what the direct execution's serialiser leaves out as it writes.
 */
export function withoutOmittedNulls(json: string, omitted: ReadonlySet<string>): string {
  return JSON.stringify(JSON.parse(json), (key, value: unknown) => (value === null && omitted.has(key) ? undefined : value));
}
