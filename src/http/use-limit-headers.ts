import type { Plugin } from 'graphql-yoga';
import { secondsToNextMonth, type QuotaState } from '../domain/quota';
import type { QuotaMeter } from '../services/quota';
import { rateLimitField, rateLimitPolicyField } from './rate-limit';
import type { RequestContext } from '../services/request-context';
import { isExecution, requestContextOf } from './request-context';

/**
 * The limits a caller is under, on every response, REST and GraphQL alike: the request rate limit
 * (RateLimit, RateLimit-Policy) once one was spent; for an authenticated key, the account's monthly
 * quota (X-Quota-*) after this request's charge, or read from the store when it charged nothing;
 * Key-Expires (an HTTP-date) when the key used has an end; and Retry-After when a GraphQL result
 * holds a 429 error (REST error bodies carry their own).
 */
export function useLimitHeaders(quota: QuotaMeter, clock: () => Date): Plugin {
  return {
    async onResponse({ response, serverContext }) {
      if (isExecution(serverContext)) return;
      // A quota that cannot be read (the database went away) leaves its headers out; the answer stands.
      const headers = await Promise.resolve(limitHeaders(requestContextOf(serverContext), quota, clock, (name) => response.headers.has(name))).catch(() => ({}));
      for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
    },
  };
}

/**
 * The limit headers of a request's answer, lower-cased; `has` says which the answer already carries.
 * Synchronous when nothing is left to read (no key, or a charge already reported the quota): the
 * edge then writes them without a promise.
 */
export function limitHeaders(
  context: RequestContext,
  quota: QuotaMeter,
  clock: () => Date,
  has: (lowerCaseName: string) => boolean,
): Record<string, string> | Promise<Record<string, string>> {
  // A key taken from the cache unconfirmed (the edge's REST answers) is confirmed before its
  // answer goes: a revoked key's answer becomes UNAUTHORIZED (thrown to the edge, which answers it).
  const confirming = context.confirmKey();
  if (confirming) return confirming.then(() => limitHeaders(context, quota, clock, has));
  const state = requestQuota(context, quota);
  return state instanceof Promise ? state.then((read) => limitFields(context, read, clock, has)) : limitFields(context, state, clock, has);
}

/**
 * A keyed request's quota as it leaves it: what its charge reported, or else read once from the
 * store and kept on the context, so that the headers and a GraphQL answer's extensions tell the
 * same state. Undefined without a key.
 */
export function requestQuota(context: RequestContext, quota: QuotaMeter): QuotaState | undefined | Promise<QuotaState> {
  if (!context.principal) return undefined;
  if (context.quota) return context.quota;
  return quota.state(context.principal.account).then((state) => (context.quota ??= state));
}

function limitFields(context: RequestContext, state: QuotaState | undefined, clock: () => Date, has: (lowerCaseName: string) => boolean): Record<string, string> {
  const headers: Record<string, string> = {};
  if (context.rateLimit && !has('ratelimit')) {
    headers['ratelimit-policy'] = rateLimitPolicyField(context.rateLimit.policy);
    headers['ratelimit'] = rateLimitField(context.rateLimit);
  }
  if (state) Object.assign(headers, quotaHeaders(state, clock()));
  // The caller's own key only: an answer never tells of another key.
  const expiresAt = context.principal?.expiresAt;
  if (expiresAt) headers['key-expires'] = new Date(expiresAt).toUTCString();
  if (context.retryAfter !== undefined && !has('retry-after')) headers['retry-after'] = String(context.retryAfter);
  return headers;
}

/**
 * The quota fields of a keyed response. They are X-Quota-* rather than the IETF RateLimit fields
 * because the per-key request limit already sends RateLimit/RateLimit-Policy, and a calendar month
 * has no fixed window (`w`) to describe it with. Reset is delta-seconds like Retry-After and the
 * draft's `t`, so client clock skew does not matter. Lower-cased, as every answer carries them.
 */
export function quotaHeaders(state: QuotaState, now: Date): Record<string, string> {
  return {
    'x-quota-limit': String(state.limit),
    'x-quota-remaining': String(Math.max(0, state.limit - state.used)),
    'x-quota-reset': String(secondsToNextMonth(now)),
  };
}
