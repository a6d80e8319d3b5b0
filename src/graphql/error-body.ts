import type { ApiError, ErrorBody, SeeAlso, Surface } from '../domain/errors';
import { redactMessage } from '../domain/quote-input';

/**
 * How an ApiError reads to a client, in every answer that carries one (a REST error body, a batch
 * item's error, a GraphQL error): the domain's message, the listing it points to (`seeAlso`) named
 * as the caller's API names it, and no verbatim input that looks like a key. The domain names no
 * route nor field; this does. Here rather than in src/http because GraphQL renders batch items'
 * errors too, and graphql sits below http (http/errors.ts adds the HTTP headers).
 */
const HINTS: Readonly<Record<Surface, Readonly<Record<SeeAlso, string>>>> = {
  rest: {
    units: 'See GET /v1/units.',
    categories: 'See GET /v1/categories.',
    currencies: 'See GET /v1/currencies.',
    sources: 'See GET /v1/sources.',
  },
  graphql: {
    units: 'See the `units` field.',
    categories: 'See the `categories` field.',
    currencies: 'See the `currencies` field.',
    sources: 'See the `sources` field.',
  },
};

/** The message a client of `surface` sees: with the listing's hint, redacted. */
export function clientMessage(error: ApiError, surface: Surface = 'rest'): string {
  const { seeAlso } = error.details;
  return redactMessage(seeAlso === undefined ? error.message : `${error.message} ${HINTS[surface][seeAlso]}`);
}

/** The contract's error object: `{"error": ErrorBody}` in REST, a batch item's `error` member. */
export function errorBody(error: ApiError, requestId: string, surface: Surface = 'rest'): ErrorBody {
  return {
    code: error.code,
    message: clientMessage(error, surface),
    status: error.status,
    ...(error.param === undefined ? {} : { param: error.param }),
    requestId,
  };
}
