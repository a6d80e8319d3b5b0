import { buildSchema, type GraphQLDirective } from 'graphql';
import { RATE_LIMIT_KINDS, type RateLimitKind } from '../domain/rate-limit';

/**
 * The request-rate-limit directives as the schema declares them: `@publicRateLimit` on public
 * fields, `@keyRateLimit` on keyed ones. Definitions only (they do not depend on any limiter); the
 * HTTP edge implements them on its limiters (src/http/limits/rate-limit-directive.ts), for a field
 * whose request did not spend for it already: a GraphQL document spends its whole price before it
 * runs (src/http/graphql/request-rate-limit.ts), a REST route or MCP call one request.
 */
export const RATE_LIMIT_DIRECTIVE_NAMES: Readonly<Record<RateLimitKind, string>> = { public: 'publicRateLimit', key: 'keyRateLimit' };

export const RATE_LIMIT_DIRECTIVE_SDL = `
"""A public field. Its document spends its price (see \`Query\`) of the client IP's rate limit (PUBLIC_RATE_LIMIT a minute), or of the key's when it carries one, before it runs."""
directive @${RATE_LIMIT_DIRECTIVE_NAMES.public} on OBJECT | FIELD_DEFINITION

"""A field that needs an API key. Its document spends its price (see \`Query\`) of the key's rate limit (KEY_RATE_LIMIT a second) before it runs."""
directive @${RATE_LIMIT_DIRECTIVE_NAMES.key} on OBJECT | FIELD_DEFINITION
`;

/** The directive definitions, to build the schema with (they do not depend on any limiter). */
export const RATE_LIMIT_DIRECTIVE_DEFINITIONS: readonly GraphQLDirective[] = (() => {
  const schema = buildSchema(RATE_LIMIT_DIRECTIVE_SDL);
  return RATE_LIMIT_KINDS.map((kind) => schema.getDirective(RATE_LIMIT_DIRECTIVE_NAMES[kind])!);
})();
