import type { Plugin } from 'graphql-yoga';
import { ApiError } from '../../domain/errors';
import type { RequestContext } from '../../services/request-context';
import { toGraphQLError } from '../answer/errors';
import type { RateLimitKind } from '../limits/rate-limit';
import { requestContextOf } from '../front/request-context';

/** Spends one request of a rate limit (the app's spend, which throws RATE_LIMIT_EXCEEDED past it). */
export type SpendOne = (kind: RateLimitKind, context: RequestContext) => Promise<void>;

/**
 * Every GraphQL request spends one request of a limit before its document is parsed: its key's when
 * it carries a key that authenticates, its IP's public limit otherwise. Without it, a document that
 * resolves no rate-limited field (`__typename`, introspection, one that fails validation) spent
 * nothing, so an IP refused everywhere else could still make the server parse and validate 16 KiB
 * documents as fast as it could send them. The first field of the kind spent costs nothing more
 * (pointsOf reads `prepaidRateLimit`), so a document of one field costs one request.
 *
 * In onParams, which Yoga runs in getResultForParams: the edge's GraphQL requests go through the
 * same step. A refusal is the request's result (no `data`): 429 under the GraphQL-over-HTTP media
 * type, 200 under `application/json`, `Retry-After` under both (use-error-codes, limit-headers).
 */
export function useRequestRateLimit(spendOne: SpendOne): Plugin {
  return {
    onParams({ context, setResult }) {
      const requestContext = requestContextOf(context);
      // A REST request was counted by its edge; SOFA's documents never come here, but a hook might.
      if (requestContext.rateLimitSpent) return;
      return spendForRequest(requestContext, spendOne).catch((error: unknown) => {
        if (!(error instanceof ApiError)) throw error;
        setResult({ errors: [toGraphQLError(error)] });
      });
    },
  };
}

/** The key's limit when the request's key authenticates, else its IP's: one request, noted as prepaid. */
export async function spendForRequest(context: RequestContext, spendOne: SpendOne): Promise<void> {
  const kind: RateLimitKind = context.carriesKey && (await context.authenticate().then(() => true, () => false)) ? 'key' : 'public';
  await spendOne(kind, context);
  context.prepaidRateLimit = kind;
}

/**
 * Requests one rate-limited field spends: none for a REST request (its edge counted it), none for
 * a public field of a request whose key authenticated (it spent its key's limit, and a caller with
 * a key never spends its IP's), none for the first field of the kind its GraphQL request prepaid,
 * one otherwise.
 */
export function fieldPoints(context: RequestContext, kind: RateLimitKind): number {
  if (context.rateLimitSpent) return 0;
  if (kind === 'public' && context.principal !== undefined) return 0;
  if (context.prepaidRateLimit === kind) {
    context.prepaidRateLimit = undefined;
    return 0;
  }
  return 1;
}
