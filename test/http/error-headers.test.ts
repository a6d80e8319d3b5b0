import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errors';
import { errorHeaders } from '../../src/http/answer/error-headers';

/** The headers an error requires come from its data at the edge; the domain builds none. */
describe('errorHeaders', () => {
  it('sends Retry-After for an error to retry later', () => {
    expect(errorHeaders(new ApiError('SERVICE_UNAVAILABLE', 'later', { retryAfterSeconds: 60 }))).toEqual({ 'Retry-After': '60' });
  });

  it('sends the Bearer challenge of the realm, with error="invalid_token" only for refused credentials', () => {
    expect(errorHeaders(new ApiError('UNAUTHORIZED', 'x', { challenge: { realm: 'r', invalid: false } }))).toEqual({
      'WWW-Authenticate': 'Bearer realm="r"',
    });
    expect(errorHeaders(new ApiError('UNAUTHORIZED', 'x', { challenge: { realm: 'r', invalid: true } }))).toEqual({
      'WWW-Authenticate': 'Bearer realm="r", error="invalid_token"',
    });
  });

  it('sends Allow on 405 and the RateLimit fields of an exhausted limit', () => {
    expect(errorHeaders(new ApiError('METHOD_NOT_ALLOWED', 'x', { allow: ['GET', 'HEAD'] }))).toEqual({ Allow: 'GET, HEAD' });
    const policy = { name: 'per-key', limit: 5, windowSeconds: 1, description: 'a second per API key' };
    expect(
      errorHeaders(
        new ApiError('RATE_LIMIT_EXCEEDED', 'x', { retryAfterSeconds: 1, rateLimit: { policy, remaining: 0, resetSeconds: 1 } }),
      ),
    ).toEqual({
      'Retry-After': '1',
      'RateLimit-Policy': '"per-key";q=5;w=1',
      RateLimit: '"per-key";r=0;t=1',
    });
  });

  it('sends nothing for an error that requires no header', () => {
    expect(errorHeaders(new ApiError('NOT_FOUND', 'x', { param: 'id' }))).toEqual({});
  });
});
