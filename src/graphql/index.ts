import { lexicographicSortSchema, specifiedDirectives, type GraphQLSchema } from 'graphql';
import { RATE_LIMIT_DIRECTIVE_DEFINITIONS } from './rate-limit-directives';
import { builder } from './builder';
import { describePrices } from './price-descriptions';
import './scalars';
import './errors';
import './units';
import './currency';
import './currency-series';
import './series-links';
import './currencies';
import './sources';
import './batch';
import './health';
import './usage';

/**
 * The whole schema; one file per area registers its types and fields on the builder. A directives
 * list replaces graphql-js's default one, so @include, @skip and the other built-ins are listed too.
 */
// Declared field order (not sorted): REST answers list members as the types declare them ("input", "result", ...).
export const schema: GraphQLSchema = builder.toSchema({
  sortSchema: false,
  directives: [...specifiedDirectives, ...RATE_LIMIT_DIRECTIVE_DEFINITIONS],
});
describePrices(schema);

/** The schema as committed in schema/schema.graphql (sorted, so diffs show real changes only). */
export function sortedSchema(): GraphQLSchema {
  return lexicographicSortSchema(schema);
}
