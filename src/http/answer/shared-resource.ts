import { createHash, type Hash } from 'node:crypto';
import type { ResponseParts } from './answer-parts';

/**
 * The CORS answer of a shared (public, any-origin) route: the literal star, never credentials, and
 * the response headers a browser page may read (the ETag to send back, the limits, the key's end,
 * the request id).
 */
export const SHARED_CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'ETag, Key-Expires, RateLimit, RateLimit-Policy, Retry-After, X-Request-Id',
} as const;

/**
 * The preflight answer of a shared REST route: GET and HEAD, with the headers a CDN-friendly client
 * sends. `Authorization` is never among the allowed headers: a page's request with a key fails its
 * preflight, so keys stay on the server side of a browser page.
 */
export function preflightParts(): ResponseParts {
  return preflight('GET, HEAD', 'If-None-Match, Cache-Control');
}

/** The preflight answer of /graphql: GET and POST with a JSON body (Content-Type), the same validators, never `Authorization`. */
export function graphQLPreflightParts(): ResponseParts {
  return preflight('GET, POST', 'Content-Type, If-None-Match, Cache-Control');
}

function preflight(methods: string, requestHeaders: string): ResponseParts {
  return {
    status: 204,
    headers: {
      ...SHARED_CORS_HEADERS,
      'access-control-allow-methods': methods,
      'access-control-allow-headers': requestHeaders,
      'access-control-max-age': '86400',
    },
    body: null,
  };
}

/** A strong validator of the exact body bytes. */
export function strongEtag(body: string | Buffer): string {
  return strongEtagOf(createHash('sha256').update(body));
}

/** The same validator from a SHA-256 the body was fed to piece by piece (an answer built in chunks). */
export function strongEtagOf(sha256: Hash): string {
  return `"${sha256.digest('base64url').slice(0, 32)}"`;
}

/**
 * A 200 with its strong validator, or, when If-None-Match matches it, 304 Not Modified: the same
 * validator and caching fields, no type and no body.
 */
export function validatedParts(
  headers: Record<string, string>,
  body: ResponseParts['body'],
  etag: string,
  ifNoneMatch: string | null,
): ResponseParts {
  headers['etag'] = etag;
  if (!etagMatches(ifNoneMatch, etag)) return { status: 200, headers, body };
  delete headers['content-type'];
  return { status: 304, headers, body: null };
}

/** The content codings an answer may be sent in besides identity (compression.ts). */
export type ContentCoding = 'br' | 'gzip';
const CONTENT_CODINGS: readonly ContentCoding[] = ['br', 'gzip'];

/**
 * The validator of the same content sent in a content coding: the identity validator with the
 * coding's name inside the quotes (`"x"` → `"x-br"`). Each coding's bytes differ, so each has a
 * strong validator of its own (RFC 9110 8.8.3.3).
 */
export function codedEtag(etag: string, coding: ContentCoding): string {
  return `${etag.slice(0, -1)}-${coding}"`;
}

/** The validators If-None-Match lists, without their weakness marks; `*` as itself. */
export function etagCandidates(ifNoneMatch: string): string[] {
  return ifNoneMatch.split(',').map((candidate) => candidate.trim().replace(/^W\//, ''));
}

/**
 * If-None-Match uses the weak comparison (RFC 9110 13.1.2): W/"x" matches "x"; `*` matches anything.
 * `etag` is the identity validator; the validator of the same content in a coding (`"x-gzip"`,
 * `"x-br"`) matches too: the content has not changed, whichever coding the client holds it in.
 */
export function etagMatches(ifNoneMatch: string | null, etag: string): boolean {
  if (ifNoneMatch === null) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return etagCandidates(ifNoneMatch).some((candidate) => candidate === etag || isCodedEtag(candidate, etag));
}

function isCodedEtag(candidate: string, etag: string): boolean {
  return (
    candidate.length > etag.length &&
    candidate.startsWith(etag.slice(0, -1)) &&
    CONTENT_CODINGS.some((coding) => candidate === codedEtag(etag, coding))
  );
}
