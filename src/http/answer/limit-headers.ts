import { secondsToNextMonth, type QuotaState } from '../../domain/quota';
import type { QuotaMeter } from '../../services/quota';
import { rateLimitField, rateLimitPolicyField } from '../limits/rate-limit';
import type { RequestContext } from '../../services/request-context';
import type { HttpRequestContext } from '../front/request-context';

/**
 * The limit headers of a request's answer, lower-cased, for the headers it already carries: the
 * request rate limit (RateLimit, RateLimit-Policy) once one was spent; for an authenticated key,
 * the account's monthly quota (X-Quota-*) after this request's charge, or read from the store when
 * it charged nothing; Key-Expires (an HTTP-date) when the key used has an end; and Retry-After when
 * a GraphQL result holds a 429 error (REST error bodies carry their own). Synchronous when nothing
 * is left to read (no key, or a charge already reported the quota). It only builds headers: the
 * key is confirmed before, as a step of its own (finish.ts).
 */
export function limitHeaders(
  context: HttpRequestContext,
  quota: QuotaMeter,
  clock: () => Date,
  has: Readonly<Record<string, string>>,
): Record<string, string> | Promise<Record<string, string>> {
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

function limitFields(
  context: HttpRequestContext,
  state: QuotaState | undefined,
  clock: () => Date,
  has: Readonly<Record<string, string>>,
): Record<string, string> {
  const headers: Record<string, string> = {};
  const rateLimit = context.rateLimitSpend.state;
  if (rateLimit && has['ratelimit'] === undefined) {
    headers['ratelimit-policy'] = rateLimitPolicyField(rateLimit.policy);
    headers['ratelimit'] = rateLimitField(rateLimit);
  }
  if (state) Object.assign(headers, quotaHeaders(state, clock()));
  // The caller's own key only: an answer never tells of another key.
  const expiresAt = context.principal?.expiresAt;
  if (expiresAt) headers['key-expires'] = new Date(expiresAt).toUTCString();
  if (context.retryAfter !== undefined && has['retry-after'] === undefined) headers['retry-after'] = String(context.retryAfter);
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
