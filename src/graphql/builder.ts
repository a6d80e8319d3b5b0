import SchemaBuilder from '@pothos/core';
import DirectivesPlugin from '@pothos/plugin-directives';
import ZodPlugin from '@pothos/plugin-zod';
import { ApiError } from '../domain/errors';
import type { GraphQLContext } from './context';
import type { z } from 'zod';

/** A failed argument rule is the caller's fault: INVALID_REQUEST naming the argument (plugin-zod's validationError, and directResolver's). */
export function zodValidationError(error: z.ZodError): ApiError {
  const issue = error.issues[0];
  const param = issue?.path.map(String).join('.') || undefined;
  return new ApiError('INVALID_REQUEST', issue?.message ?? 'Invalid request.', param ? { param } : {});
}

/** Sets up plugins and scalar types; defines no object types (one file per area does that). */
export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  DefaultFieldNullability: false;
  Scalars: {
    Decimal: { Input: string; Output: string };
    Date: { Input: string; Output: string };
    RateMap: { Input: never; Output: Record<string, string> };
  };
  // Request rate limits (graphql-rate-limit-directive): per client IP on public fields, per key on keyed ones.
  Directives: {
    publicRateLimit: { locations: 'FIELD_DEFINITION'; args: Record<string, never> };
    keyRateLimit: { locations: 'FIELD_DEFINITION'; args: Record<string, never> };
  };
}>({
  plugins: [DirectivesPlugin, ZodPlugin],
  directives: { useGraphQLToolsUnorderedDirectives: true },
  // Non-null by default gives REST clients proper `required` lists; the fields that can fail are
  // declared nullable so that one failed field does not null a whole GraphQL response.
  defaultFieldNullability: false,
  zod: { validationError: zodValidationError },
});

builder.queryType({
  description:
    "Every capability of the Measurement API. Unit catalogue and health are public; conversions need an API key. A document spends its price of the request rate limit (the key's, else the client IP's) before it runs: each root field, public ones included, 1 request per 1,000 values of its answer (a list counts the items its field declares) and at least 1; past what the limit has left it is refused whole (RATE_LIMIT_EXCEEDED, Retry-After). Every answer reports its cost in `extensions`: `cost` (conversions requested, and charged: the conversion results present in `data`; `requests`, the document's price), `quota` (the key's monthly quota) and `rateLimit` (the request limit spent from).",
});
