import {
  isAbstractType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
} from 'graphql';

/**
 * What GraphQL execution would answer for a field's value when every field of its type is selected,
 * as SOFA selects them for REST: the same field resolvers, the same scalar `serialize`, the same
 * union `resolveType`, in the schema's declared field order. The fast lane uses it to answer REST
 * routes without parsing, validating and executing a document per request; the parity tests hold
 * it to SOFA's answers byte for byte. Resolvers below the root must be synchronous (they are: they
 * read the object they are given); a promise is a TypeError, never a silently wrong answer.
 */
export function selectAll(schema: GraphQLSchema, type: GraphQLOutputType, value: unknown, context: unknown): unknown {
  if (isNonNullType(type)) return selectAll(schema, type.ofType, value, context);
  if (value === null || value === undefined) return null;
  if (isListType(type)) {
    if (!Array.isArray(value)) throw new TypeError(`selectAll: expected a list for ${type.toString()}`);
    return value.map((item) => selectAll(schema, type.ofType, item, context));
  }
  if (isLeafType(type)) return type.serialize(value);
  const object = isAbstractType(type) ? concreteType(schema, type.resolveType?.(value, context, infoFor(schema, type.name), type)) : type;
  if (!isObjectType(object)) throw new TypeError(`selectAll: no object type for a value of ${type.toString()}`);
  const out: Record<string, unknown> = {};
  for (const field of fieldsOf(object)) {
    const resolved = field.resolve ? field.resolve(value, {}, context, infoFor(schema, field.name, object)) : (value as Record<string, unknown>)[field.name];
    if (resolved instanceof Promise) throw new TypeError(`selectAll: ${object.name}.${field.name} resolved asynchronously`);
    out[field.name] = selectAll(schema, field.type, resolved, context);
  }
  return out;
}

const fieldLists = new WeakMap<GraphQLObjectType, GraphQLField<unknown, unknown>[]>();
function fieldsOf(type: GraphQLObjectType): GraphQLField<unknown, unknown>[] {
  let fields = fieldLists.get(type);
  if (!fields) fieldLists.set(type, (fields = Object.values(type.getFields())));
  return fields;
}

function concreteType(schema: GraphQLSchema, resolved: unknown): GraphQLObjectType | undefined {
  if (typeof resolved === 'string') {
    const named = schema.getType(resolved);
    return isObjectType(named) ? named : undefined;
  }
  return isObjectType(resolved) ? resolved : undefined;
}

/** The little of GraphQLResolveInfo that resolvers below the root may read: where they are. */
function infoFor(schema: GraphQLSchema, fieldName: string, parentType?: GraphQLObjectType): GraphQLResolveInfo {
  return { fieldName, schema, parentType, path: { prev: undefined, key: fieldName, typename: parentType?.name } } as unknown as GraphQLResolveInfo;
}
