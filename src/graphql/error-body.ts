import type { ApiError, ErrorBody, SeeAlso } from '../domain/errors';
import { redactMessage } from '../domain/quote-input';

/**
 * How an ApiError reads to a client, in every answer that carries one (a REST error body, a batch
 * item's error, a GraphQL error): the domain's message, the route of the listing it points to
 * (`seeAlso`), and no verbatim input that looks like a key. The domain names no route; this does.
 * Here rather than in src/http because GraphQL renders batch items' errors too, and graphql sits
 * below http (http/errors.ts adds the HTTP headers).
 */
const ROUTE_HINTS: Readonly<Record<SeeAlso, (message: string) => string>> = {
  units: (message) => `${message} See GET /v1/units.`,
  categories: (message) => `${message} See GET /v1/categories.`,
  'currency-conversion': (message) => `${message.replace(/\.$/, '')}: use POST /v1/currency/convert.`,
};

/** The message a client sees: with the route hint, redacted. */
export function clientMessage(error: ApiError): string {
  const { seeAlso } = error.details;
  return redactMessage(seeAlso === undefined ? error.message : ROUTE_HINTS[seeAlso](error.message));
}

/** The contract's error object: `{"error": ErrorBody}` in REST, a batch item's `error` member. */
export function errorBody(error: ApiError, requestId: string): ErrorBody {
  return {
    code: error.code,
    message: clientMessage(error),
    status: error.status,
    ...(error.param === undefined ? {} : { param: error.param }),
    requestId,
  };
}
