import { lexicographicSortSchema, type GraphQLSchema } from 'graphql';
import { builder } from './builder';
import './scalars';
import './errors';
import './units';
import './batch';
import './health';

/** The whole schema; one file per area registers its types and fields on the builder. */
export const schema: GraphQLSchema = builder.toSchema();

/** The schema as committed in schema/schema.graphql (sorted, so diffs show real changes only). */
export function sortedSchema(): GraphQLSchema {
  return lexicographicSortSchema(schema);
}
