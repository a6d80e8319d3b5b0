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

/** The preflight answer of a shared route: GET only, with the headers a CDN-friendly client sends. */
export function preflightParts(): ResponseParts {
  return {
    status: 204,
    headers: {
      ...SHARED_CORS_HEADERS,
      'access-control-allow-methods': 'GET, HEAD',
      'access-control-allow-headers': 'If-None-Match, Cache-Control',
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

/** If-None-Match uses the weak comparison (RFC 9110 13.1.2): W/"x" matches "x"; `*` matches anything. */
export function etagMatches(ifNoneMatch: string | null, etag: string): boolean {
  if (ifNoneMatch === null) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}
