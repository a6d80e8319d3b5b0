import type { ExecutionResult } from 'graphql';
import { etagMatches, strongEtag } from '../answer/shared-resource';
import { mergeVary } from '../answer/vary';

/**
 * The validators and caching fields of a cacheable GraphQL GET answer, as functions over the
 * finished body, for whichever path writes the answer (Yoga's onResponse today, the front later).
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
export function cacheableAnswer(body: string | Buffer, cacheControl: string, ifNoneMatch: string | null, vary: string | null = null): CacheableAnswer {
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
