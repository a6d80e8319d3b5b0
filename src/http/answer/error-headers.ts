import type { ApiError } from '../../domain/errors';
import { rateLimitHeaders } from '../limits/rate-limit';

/**
 * The response headers an error requires, from its data (the domain raises codes and params only):
 * Retry-After for anything to be retried later (429, 503), the Bearer challenge of RFC 6750 on 401,
 * Allow on 405, Accept-Encoding on a 415 for a coded body (RFC 7694), and the RateLimit fields of
 * an exhausted request limit.
 */
export function errorHeaders(error: ApiError): Record<string, string> {
  const { retryAfterSeconds, challenge, allow, acceptEncoding, rateLimit } = error.details;
  const headers: Record<string, string> = {};
  if (retryAfterSeconds !== undefined) headers['Retry-After'] = String(retryAfterSeconds);
  if (challenge) {
    const metadata = challenge.resourceMetadata === undefined ? '' : `, resource_metadata="${challenge.resourceMetadata}"`;
    headers['WWW-Authenticate'] = `Bearer realm="${challenge.realm}"${challenge.invalid ? ', error="invalid_token"' : ''}${metadata}`;
  }
  if (allow) headers['Allow'] = allow.join(', ');
  if (acceptEncoding) headers['Accept-Encoding'] = acceptEncoding.join(', ');
  if (rateLimit) Object.assign(headers, rateLimitHeaders(rateLimit));
  return headers;
}
