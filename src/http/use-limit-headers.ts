import type { Plugin } from 'graphql-yoga';
import { quotaHeaders } from '../domain/quota';
import type { QuotaMeter } from '../services/quota';
import { rateLimitHeaders } from './rate-limit';
import { requestContextOf } from './request-context';

/**
 * The limits a caller is under, on every response, REST and GraphQL alike: the request rate limit
 * (RateLimit, RateLimit-Policy) once one was spent; for an authenticated key, the account's monthly
 * quota (X-Quota-*) after this request's charge, or read from the store when it charged nothing;
 * and Retry-After when a GraphQL result holds a 429 error (REST error bodies carry their own).
 */
export function useLimitHeaders(quota: QuotaMeter, clock: () => Date): Plugin {
  return {
    async onResponse({ response, serverContext }) {
      const context = requestContextOf(serverContext);
      const headers: Record<string, string> = {};
      if (context.rateLimit && !response.headers.has('ratelimit')) Object.assign(headers, rateLimitHeaders(context.rateLimit));
      if (context.principal) Object.assign(headers, quotaHeaders(context.quota ?? (await quota.state(context.principal.account)), clock()));
      if (context.retryAfter !== undefined && !response.headers.has('retry-after')) headers['Retry-After'] = String(context.retryAfter);
      for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
    },
  };
}
