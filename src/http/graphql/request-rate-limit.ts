import { ApiError } from '../../domain/errors';
import { textPrice } from '../../graphql/price';
import type { HttpRequestContext } from '../front/request-context';
import type { RequestSpending } from '../limits/request-spending';

const refusalOf = (error: unknown): ApiError => {
  if (error instanceof ApiError) return error;
  throw error;
};

/**
 * Every GraphQL request spends one request of a limit before its document is parsed: its key's when
 * it carries a key that authenticates, its IP's public limit otherwise (request-spending.ts): the
 * first request of the document's price (spendPrice spends the rest).
 * Without it, a document that resolves no rate-limited field (`__typename`, introspection, one that
 * fails validation) spent nothing, so an IP refused everywhere else could still make the server
 * parse and validate 16 KiB documents as fast as it could send them. A refusal is the request's
 * result (no `data`): 429 under the GraphQL-over-HTTP media type, 200 under `application/json`,
 * `Retry-After` under both (error-codes.ts, limit-headers.ts).
 *
 * Undefined, without a promise, when the request's spend was made already (a REST route through
 * SOFA, an MCP call: it covers every field); else the spend, settling to the refusal the request is
 * answered with (RATE_LIMIT_EXCEEDED), or undefined when it may go on.
 */
export function spendBeforeParse(
  context: HttpRequestContext,
  spending: Pick<RequestSpending, 'spendRequest'>,
): Promise<ApiError | undefined> | undefined {
  if (context.rateLimitSpend.paid) return undefined;
  return spending.spendRequest(context, 'public', 'first-field').then(() => undefined, refusalOf);
}

/**
 * Spends a GraphQL document's text price (src/graphql/price.ts: textPrice, by its length) once its
 * text is known, a persisted document's included, and before it is parsed: a text never seen
 * before is parsed and validated before its fields can be priced, so a key sending huge distinct
 * documents is held back before the parses they cause. Undefined, without a promise, when the
 * request's spend covers the request already (spendPrice says which); else the refusal or undefined.
 */
export function spendTextPrice(
  context: HttpRequestContext,
  text: string,
  spending: Pick<RequestSpending, 'spendTextPrice'>,
): Promise<ApiError | undefined> | undefined {
  if (context.rateLimitSpend.covers !== 'first-field') return undefined;
  return spending.spendTextPrice(context, textPrice(text)).then(() => undefined, refusalOf);
}

/**
 * Spends the rest of a GraphQL document's price (src/graphql/price.ts, worked out by `price` only
 * here) once it validated and before anything runs, from the bucket spendBeforeParse chose: every
 * field and list item it asks for, public ones included, whether it came by POST, GET or a
 * persisted document's hash. Undefined, without a promise, when the request's spend covers the
 * request already (a REST route through SOFA, an MCP call: their surface priced them); else the
 * refusal (INVALID_REQUEST over the whole limit, RATE_LIMIT_EXCEEDED over what is left) or undefined.
 */
export function spendPrice(
  context: HttpRequestContext,
  price: () => number,
  spending: Pick<RequestSpending, 'spendPrice'>,
): Promise<ApiError | undefined> | undefined {
  if (context.rateLimitSpend.covers !== 'first-field') return undefined;
  return spending.spendPrice(context, price()).then(() => undefined, refusalOf);
}
