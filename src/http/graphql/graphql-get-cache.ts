import type { ExecutionResult } from 'graphql';
import type { ResponseParts } from '../answer/answer-parts';
import { etagMatches, strongEtag } from '../answer/shared-resource';
import { mergeVary } from '../answer/vary';
import { graphQLAnswer, type GraphQLMediaType } from './graphql-http';

/**
 * Cacheable GraphQL GETs (`GET /graphql?query=…`, or a persisted document's hash): the answer's
 * Cache-Control comes from the fields its document selects (graphql-cache-policy.ts), worked out
 * when the document executes (after parsing, validation and the limits); a cacheable answer leaves
 * the request's counters out of its body and gets a strong ETag of that body, Vary, and 304 on
 * If-None-Match. Every other GraphQL GET answer in JSON (errors, conversions, a key's account) is
 * `no-store`. POST answers are left as they are.
 */

/** What changes a GraphQL answer besides its URL: the media type asked, the names' language, the key. */
export const GRAPHQL_GET_VARY = ['Accept', 'Accept-Language', 'Authorization'] as const;

export interface CacheableAnswer {
  status: 200 | 304;
  /** Cache-Control, ETag and Vary (the Vary merged with what the answer already varies on). */
  headers: Record<string, string>;
}

/**
 * A cacheable answer's status and headers: a strong ETag of the exact body, and 304 Not Modified
 * (the same validator and caching fields, no body) when If-None-Match holds it.
 */
export function cacheableAnswer(
  body: string | Buffer,
  cacheControl: string,
  ifNoneMatch: string | null,
  vary: string | null = null,
): CacheableAnswer {
  const etag = strongEtag(body);
  const headers = { 'cache-control': cacheControl, etag, vary: mergeVary(vary, GRAPHQL_GET_VARY) };
  return { status: etagMatches(ifNoneMatch, etag) ? 304 : 200, headers };
}

/**
 * A cacheable answer without the request's counters: the remaining quota and rate limit change with
 * every request, so a body that carries them would never match its ETag again, and a cached copy
 * would show stale counts. They stay in the answer's headers (RateLimit, X-Quota-*), which a 304
 * carries too. The rest of `extensions` (the cost, the key's end, the languages) is the same for
 * the same request.
 */
export function withoutRequestCounters(result: ExecutionResult): ExecutionResult {
  if (result.extensions === undefined) return result;
  const { rateLimit: _rateLimit, quota: _quota, ...extensions } = result.extensions as Record<string, unknown>;
  return { ...result, extensions };
}

/** A GET's result is cached under its document's Cache-Control when it executed one other than `no-store` and has no errors. */
export function isCacheable(result: ExecutionResult, cacheControl: string | undefined): cacheControl is string {
  return cacheControl !== undefined && cacheControl !== 'no-store' && !result.errors?.length;
}

/**
 * A GraphQL GET's answer (graphQLAnswer) under its document's Cache-Control (graphQLCacheControl, or
 * undefined when the request executed nothing): a cacheable answer leaves the request's counters out
 * of its body and gets a strong ETag, Vary, and 304 on If-None-Match; every other answer (errors,
 * conversions, a key's account) is `no-store`, with the same Vary.
 */
export function graphQLGetAnswer(
  result: ExecutionResult,
  mediaType: GraphQLMediaType,
  cacheControl: string | undefined,
  ifNoneMatch: string | null,
): ResponseParts {
  const cacheable = isCacheable(result, cacheControl);
  const parts = graphQLAnswer(cacheable ? withoutRequestCounters(result) : result, mediaType);
  if (!cacheable || parts.status !== 200) {
    return {
      ...parts,
      headers: { ...parts.headers, 'cache-control': 'no-store', vary: mergeVary(parts.headers['vary'] ?? null, GRAPHQL_GET_VARY) },
    };
  }
  const answer = cacheableAnswer(parts.body ?? '', cacheControl, ifNoneMatch, parts.headers['vary'] ?? null);
  const headers = { ...parts.headers, ...answer.headers };
  if (answer.status === 200) return { status: 200, headers, body: parts.body };
  // Not Modified: the validator and caching fields, and no body.
  return { status: 304, headers: { ...headers, 'content-length': '0' }, body: '' };
}
