import type { ExecutionResult } from 'graphql';
import type { LanguageChoice } from '../../domain/language/choose';
import { startOfNextMonth, type QuotaState } from '../../domain/quota';
import type { QuotaMeter } from '../../services/quota';
import type { HttpRequestContext } from '../front/request-context';
import { requestQuota } from '../answer/limit-headers';

/**
 * What a GraphQL answer reports in `extensions`, as GitHub's and Shopify's GraphQL APIs report a
 * query's cost: the same facts the REST headers carry, in the body, where GraphQL clients read them.
 */
export interface CostExtensions {
  cost: {
    /** Conversions the operation asks for (conversion fields plus batch items), planned before execution; 0 when refused before that. */
    requestedConversions: number;
    /** Conversions charged to the quota: the conversion results present in `data` (failed fields and items cost nothing). */
    chargedConversions: number;
    /**
     * Requests of the rate limit the request costs (`rateLimit` says what is left): a document's
     * price, worked out before execution (src/graphql/price.ts), and what its fields spent beyond
     * it (a computed rateSeries page's cost, as the REST export spends it); what was spent before
     * it was refused, when it was refused before it was priced; a REST route's or MCP call's spend.
     */
    requests: number;
  };
  /** The account's monthly quota after this request (the X-Quota-* headers); only once a key was used. */
  quota?: { limit: number; remaining: number; resetsAt: string };
  /** The request rate limit this request spent from (the RateLimit and RateLimit-Policy headers); only once one was spent. */
  rateLimit?: { policy: string; limit: number; windowSeconds: number; remaining: number; resetSeconds: number };
  /** The languages the document's names were given in, each with how it was chosen; only when a field gave names. */
  languages?: readonly LanguageChoice[];
  /** The key used, when it has an end (the Key-Expires header): when it stops working, ISO 8601. */
  key?: { expiresAt: string };
}

/**
 * The cost extensions of a request's answer. Synchronous when nothing is left to read (no key, or a
 * charge already reported the quota); otherwise the quota is read once (requestQuota), so the
 * X-Quota-* headers written next report the very same state.
 */
export function costExtensions(
  context: HttpRequestContext,
  quota: QuotaMeter,
  clock: () => Date,
): CostExtensions | Promise<CostExtensions> {
  const state = requestQuota(context, quota);
  return state instanceof Promise ? state.then((read) => extensionsOf(context, read, clock)) : extensionsOf(context, state, clock);
}

function extensionsOf(context: HttpRequestContext, state: QuotaState | undefined, clock: () => Date): CostExtensions {
  const extensions: CostExtensions = {
    cost: {
      requestedConversions: context.requestedConversions,
      chargedConversions: context.chargedConversions,
      requests: Math.max(context.rateLimitSpend.price ?? 0, context.rateLimitSpend.spent),
    },
  };
  if (state) extensions.quota = quotaOf(state, clock());
  const expiresAt = context.principal?.expiresAt;
  if (expiresAt) extensions.key = { expiresAt };
  if (context.rateLimitSpend.state) {
    const { policy, remaining, resetSeconds } = context.rateLimitSpend.state;
    extensions.rateLimit = { policy: policy.name, limit: policy.limit, windowSeconds: policy.windowSeconds, remaining, resetSeconds };
  }
  if (context.languages.length > 0) extensions.languages = context.languages;
  return extensions;
}

/** The quota resets at an instant of the calendar (00:00 UTC on the 1st), the same for every client's clock. */
function quotaOf(state: QuotaState, now: Date): NonNullable<CostExtensions['quota']> {
  return {
    limit: state.limit,
    remaining: Math.max(0, state.limit - state.used),
    resetsAt: startOfNextMonth(now).toISOString(),
  };
}

/** A single result with the request's cost extensions added to whatever extensions it has. */
export function withCostExtensions(
  result: ExecutionResult,
  context: HttpRequestContext,
  quota: QuotaMeter,
  clock: () => Date,
): ExecutionResult | Promise<ExecutionResult> {
  const add = (extensions: CostExtensions): ExecutionResult => ({ ...result, extensions: { ...result.extensions, ...extensions } });
  const extensions = costExtensions(context, quota, clock);
  return extensions instanceof Promise ? extensions.then(add) : add(extensions);
}
