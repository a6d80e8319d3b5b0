import type { Plugin } from 'graphql-yoga';
import { quotaHeaders } from '../domain/quota';
import type { QuotaMeter } from '../services/quota';
import { rateLimitHeaders } from './rate-limit';
import { requestState } from './request-state';

/**
 * The limits a caller is under, on every response: the request rate limit (RateLimit,
 * RateLimit-Policy) once one was spent, and, for an authenticated key, the account's monthly
 * quota (X-Quota-*) after this request's charge, or read from the store when it charged nothing.
 */
export function useLimitHeaders(quota: QuotaMeter, clock: () => Date): Plugin {
  return {
    async onResponse({ response, serverContext }) {
      const state = requestState(serverContext);
      const headers: Record<string, string> = {};
      if (state.rateLimit && !response.headers.has('ratelimit')) Object.assign(headers, rateLimitHeaders(state.rateLimit));
      if (state.principal) Object.assign(headers, quotaHeaders(state.quota ?? (await quota.state(state.principal.account)), clock()));
      for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
    },
  };
}
