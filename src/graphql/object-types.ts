import { isIntrospectionType, isObjectType, type GraphQLSchema } from 'graphql';

/**
 * Every object type's name. SOFA treats a type with an `id` field as a "model" and selects only
 * its id when nested (a category's units would come back as `[{"id": ...}]`); listing the types
 * in its `ignore` option makes REST answers carry whole objects, as GraphQL clients can.
 */
export function everyObjectType(schema: GraphQLSchema): string[] {
  return Object.values(schema.getTypeMap())
    .filter((type) => isObjectType(type) && !isIntrospectionType(type) && type !== schema.getQueryType())
    .map((type) => type.name);
}
