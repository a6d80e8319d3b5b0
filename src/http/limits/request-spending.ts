import { ApiError } from '../../domain/errors';
import { DOCUMENT_BYTES_PER_REQUEST, VALUES_PER_REQUEST } from '../../graphql/price';
import type { SpendCover } from '../../domain/rate-limit';
import type { Metrics } from '../../metrics';
import type { RefusalRecorder } from '../../services/usage';
import type { RequestContext } from '../../services/request-context';
import type { RateLimiters, RateLimitKind } from './rate-limit';
import { rateLimitDirectiveFor, type RateLimitDirectives } from './rate-limit-directive';
import type { HttpGraphQLContext, HttpRequestContext } from '../front/request-context';

/**
 * Which request rate limit each request spends, decided once, and every spend of it recorded on the
 * request's context (`rateLimitSpend`), which the RateLimit headers, GraphQL's extensions and every
 * surface read. The rules (contract sections 7, 11 and 12):
 *
 * | surface                         | admits   | bucket                                       | its spend covers          |
 * |---------------------------------|----------|----------------------------------------------|---------------------------|
 * | REST keyed route, MCP           | `key`    | the key's (UNAUTHORIZED first without one)   | the request               |
 * | a series export's signed link   | `key`    | the key's links' (`<key id>:links`)          | the request               |
 * | REST public route               | `public` | the key's when it authenticates, else the IP's | the request             |
 * | GraphQL, before parse           | `public` | the key's when it authenticates, else the IP's | one request of its price, then its text's price |
 * | GraphQL, before execution       |          | the same bucket                              | the rest of its price: every field |
 * | GraphiQL's page and assets      | none     | nothing is spent                              |                           |
 *
 * A REST request spends before its inputs are checked; a series export spends its further pages'
 * cost from the same bucket (spendMore), as a GraphQL rateSeries does. A GraphQL document spends
 * its price (src/graphql/price.ts: every root field, public ones included, and the items of its
 * lists; at least its text's price, by its length): one request before it is parsed, its text's
 * price once its text is known (spendTextPrice, still before it is parsed), the rest once it
 * validated and before anything runs (spendPrice), so its fields spend nothing through the
 * rate-limit directive.
 */
export interface RequestSpending {
  /**
   * Decides the request's bucket (once) for a surface that admits `access`, and spends one request
   * of it, covering `covers`. Throws UNAUTHORIZED (a `key` surface without a valid key) or
   * RATE_LIMIT_EXCEEDED, recording the refusal.
   */
  spendRequest(context: HttpRequestContext, access: RateLimitKind, covers: SpendCover): Promise<void>;
  /** Spends `points` more requests of the bucket the request already spends from (a series export's further pages). */
  spendMore(context: HttpRequestContext, points: number): Promise<void>;
  /**
   * Spends the rest of a GraphQL document's price (`requests`, of which spendRequest spent one) from
   * the request's bucket, before it executes; then its fields spend nothing more. Throws
   * INVALID_REQUEST when the price is over the whole limit (it could never run), or
   * RATE_LIMIT_EXCEEDED, saying the price, when it is over what the window has left.
   */
  spendPrice(context: HttpRequestContext, requests: number): Promise<void>;
  /**
   * Spends a GraphQL document's text price (src/graphql/price.ts: textPrice) once its text is known
   * and before it is parsed, from the same bucket, as much of it as the request has not spent yet;
   * refused as spendPrice refuses. The fields' price, once it validated, spends only what it adds.
   */
  spendTextPrice(context: HttpRequestContext, requests: number): Promise<void>;
  /** The rate-limit directive on the same limiters and records: a field spends only what the request's spend left. */
  readonly fieldRateLimits: RateLimitDirectives;
}

interface RequestSpendingOptions {
  limiters: RateLimiters;
  /** Where refusals are counted: per plan (`public` for the per-IP limit). */
  metrics: Pick<Metrics, 'rateLimited'>;
  /** Where a key's refusals are noted on its account's day. */
  refusals: Pick<RefusalRecorder, 'refused'>;
}

export function requestSpending({ limiters, metrics, refusals }: RequestSpendingOptions): RequestSpending {
  const noteRefusal = (kind: RateLimitKind, context: HttpRequestContext) => {
    if (kind === 'public') return metrics.rateLimited('public');
    const note = (principal: { account: { id: string; plan: string } }) => {
      metrics.rateLimited(principal.account.plan);
      refusals.refused(principal.account.id, 'rate');
    };
    // A key's bucket is only spent once the key authenticated: its principal is there.
    if (context.principal) note(context.principal);
    else void context.authenticate().then(note, () => undefined);
  };

  /** Spends `points` from the request's decided bucket (of `kind`), found once. */
  const spend = async (context: HttpRequestContext, kind: RateLimitKind, points: number) => {
    const record = context.rateLimitSpend;
    if (record.bucket === undefined) {
      // No await where the bucket is known now (the IP's, an authenticated key's).
      const found = bucketOf(context, kind);
      record.bucket = typeof found === 'string' ? found : await found;
    }
    try {
      record.counted(points, await limiters.consume(kind, record.bucket, points), false);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'RATE_LIMIT_EXCEEDED') {
        record.counted(points, undefined, true);
        noteRefusal(kind, context);
      }
      throw error;
    }
  };

  const spendUpTo = spenderUpTo(limiters, spend);

  return {
    async spendRequest(context, access, covers) {
      const record = context.rateLimitSpend;
      record.kind ??= await bucketKind(context, access);
      await spend(context, record.kind, 1);
      record.covers = covers;
    },
    spendMore(context, points) {
      const kind = context.rateLimitSpend.kind;
      if (kind === undefined) throw new TypeError('spendMore before spendRequest: the request has no bucket yet.');
      return spend(context, kind, points);
    },
    async spendTextPrice(context, requests) {
      const asked = `The document's text costs ${requests.toLocaleString('en-US')} requests of the rate limit (one per ${DOCUMENT_BYTES_PER_REQUEST.toLocaleString('en-US')} bytes, spent before it is parsed)`;
      await spendUpTo(context, requests, asked);
    },
    async spendPrice(context, requests) {
      context.rateLimitSpend.price = requests;
      const asked = `The document costs ${requests.toLocaleString('en-US')} requests of the rate limit (each root field one per ${VALUES_PER_REQUEST.toLocaleString('en-US')} values of its answer, at least one, and its text one per ${DOCUMENT_BYTES_PER_REQUEST.toLocaleString('en-US')} bytes)`;
      await spendUpTo(context, requests, asked);
      context.rateLimitSpend.covers = 'document';
    },
    fieldRateLimits: rateLimitDirectiveFor<HttpGraphQLContext>(limiters, {
      bucketOf: (kind, { requestContext }) =>
        (requestContext.rateLimitSpend.kind === kind && requestContext.rateLimitSpend.bucket) || bucketOf(requestContext, kind),
      onState: (state, { requestContext }) => requestContext.rateLimitSpend.counted(1, state, false),
      fieldSpends: ({ requestContext }, kind) => requestContext.rateLimitSpend.fieldSpends(kind),
      onRefused: (kind, { requestContext }) => {
        requestContext.rateLimitSpend.refused = true;
        noteRefusal(kind, requestContext);
      },
    }),
  };
}

/**
 * Brings what the request spent from its bucket up to `requests`: INVALID_REQUEST when that is
 * over the whole limit (it could never be spent), RATE_LIMIT_EXCEEDED saying `asked` when it is
 * over what the window has left.
 */
function spenderUpTo(
  limiters: RateLimiters,
  spend: (context: HttpRequestContext, kind: RateLimitKind, points: number) => Promise<void>,
): (context: HttpRequestContext, requests: number, asked: string) => Promise<void> {
  return async (context, requests, asked) => {
    const record = context.rateLimitSpend;
    const kind = record.kind;
    if (kind === undefined) throw new TypeError('A price spent before spendRequest: the request has no bucket yet.');
    const { limit, description } = limiters.policies[kind];
    if (requests > limit) {
      throw new ApiError('INVALID_REQUEST', `${asked}; at most ${limit} ${description} can be spent: send it as smaller documents.`);
    }
    const rest = requests - record.spent;
    if (rest <= 0) return;
    try {
      await spend(context, kind, rest);
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'RATE_LIMIT_EXCEEDED') throw error;
      throw new ApiError('RATE_LIMIT_EXCEEDED', `${asked}, more than the window has left. ${error.message}`, error.details);
    }
  };
}

/**
 * The bucket of a surface that admits `access`: a `key` surface's key (authenticated first:
 * UNAUTHORIZED without a valid one); on a `public` one, the key the request carries when it
 * authenticates (a caller with a key never spends its IP's limit), else the client IP's. A key
 * that does not authenticate is ignored on a public surface, as a missing one is.
 */
async function bucketKind(context: RequestContext, access: RateLimitKind): Promise<RateLimitKind> {
  if (access === 'key') {
    await context.authenticate();
    return 'key';
  }
  if (!context.carriesKey) return 'public';
  return context.authenticate().then(
    () => 'key' as const,
    () => 'public' as const,
  );
}

/**
 * The request's bucket of `kind`: its key's (authenticated first), or its client IP's bucket. A
 * request made through a signed link spends its key's links' bucket, a budget of its own: holders
 * of a link can never spend the requests of the key's owner.
 */
function bucketOf(context: RequestContext, kind: RateLimitKind): string | Promise<string> {
  if (kind === 'public') return context.clientBucket;
  const bucket = (keyId: string) => (context.viaLink ? `${keyId}:links` : keyId);
  return context.principal ? bucket(context.principal.keyId) : context.authenticate().then((principal) => bucket(principal.keyId));
}
