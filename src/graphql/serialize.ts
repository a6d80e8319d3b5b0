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
 * union `resolveType`, in the schema's declared field order. The edge uses it to answer REST
 * routes without parsing, validating and executing a document per request; the parity tests hold
 * it to SOFA's answers byte for byte. Resolvers below the root must be synchronous (they are: they
 * read the object they are given); a promise is a TypeError, never a silently wrong answer.
 * It repeats how SOFA selects a type (every field, in declared order): sofa-api 0.18.10 and
 * @graphql-yoga/plugin-sofa 3.24.1 are pinned exactly in package.json, and test/http/rest-executions.test.ts
 * (every route executed directly and through SOFA, answers compared) fails when that changes.
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
    const resolved = field.resolve
      ? field.resolve(value, {}, context, infoFor(schema, field.name, object))
      : (value as Record<string, unknown>)[field.name];
    if (resolved instanceof Promise) throw new TypeError(`selectAll: ${object.name}.${field.name} resolved asynchronously`);
    out[field.name] = selectAll(schema, field.type, resolved, context);
  }
  return out;
}

/**
 * The field extension that declares a nullable field absent from REST answers when it is null: a
 * REST error leaves `param` out when no one input is at fault, a unit conversion has an
 * `exchangeRate` only when a unit expression names a currency, and a quantity's counted `text` only
 * when `lang` asked for it. GraphQL answers every selected field, null or not.
 */
export const REST_OMITS_NULL = 'restOmitsNull';

/** The names of the fields declared REST_OMITS_NULL anywhere in the schema. */
export function restOmittedWhenNull(schema: GraphQLSchema): ReadonlySet<string> {
  const names = new Set<string>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (isObjectType(type)) for (const field of fieldsOf(type)) if (field.extensions[REST_OMITS_NULL] === true) names.add(field.name);
  }
  return names;
}

/** The fields declared REST_OMITS_NULL, as `Type.field` coordinates: another type's field of the same name is always sent. */
export function restOmittedCoordinates(schema: GraphQLSchema): ReadonlySet<string> {
  const coordinates = new Set<string>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (isObjectType(type))
      for (const field of fieldsOf(type)) if (field.extensions[REST_OMITS_NULL] === true) coordinates.add(`${type.name}.${field.name}`);
  }
  return coordinates;
}

/**
 * `JSON.stringify(selectAll(...))` without the members declared REST_OMITS_NULL when null, written as it goes: the same resolvers, `serialize` and
 * `resolveType` calls in the same order, without building the intermediate objects (a batch answer
 * is about 10,000 of them). Each output type is compiled once into a writer (keys JSON-quoted, the
 * resolvers' info built, the type's kind decided), so per value only the resolvers run. A leaf whose
 * `serialize` gives undefined is left out of its object and is `null` in a list, as JSON.stringify does.
 */
export function selectAllJson(schema: GraphQLSchema, type: GraphQLOutputType, value: unknown, context: unknown): string | undefined {
  return writerOf(schema, type)(value, context);
}

/** The arguments of a field below the root as SOFA selects it: none; one frozen object for every call (resolvers below the root read none, and none may change it). */
const NO_ARGS = Object.freeze({});

type Writer = (value: unknown, context: unknown) => string | undefined;

const writers = new WeakMap<GraphQLSchema, Map<GraphQLOutputType, Writer>>();

function writerOf(schema: GraphQLSchema, type: GraphQLOutputType): Writer {
  let bySchema = writers.get(schema);
  if (!bySchema) writers.set(schema, (bySchema = new Map()));
  let writer = bySchema.get(type);
  if (!writer) {
    // A forwarder is set before the writer is built: object types may refer to themselves.
    const slot: { writer?: Writer } = {};
    bySchema.set(type, (value, context) => slot.writer!(value, context));
    slot.writer = writer = buildWriter(schema, type);
    bySchema.set(type, writer);
  }
  return writer;
}

function buildWriter(schema: GraphQLSchema, type: GraphQLOutputType): Writer {
  if (isNonNullType(type)) return writerOf(schema, type.ofType);
  if (isListType(type)) {
    const item = writerOf(schema, type.ofType);
    return (value, context) => {
      if (value === null || value === undefined) return 'null';
      if (!Array.isArray(value)) throw new TypeError(`selectAll: expected a list for ${type.toString()}`);
      let out = '[';
      for (let i = 0; i < value.length; i += 1) {
        if (i > 0) out += ',';
        out += item(value[i], context) ?? 'null';
      }
      return out + ']';
    };
  }
  if (isLeafType(type)) {
    return (value) => {
      if (value === null || value === undefined) return 'null';
      const serialized: unknown = type.serialize(value);
      return typeof serialized === 'string' ? jsonString(serialized) : JSON.stringify(serialized);
    };
  }
  if (isAbstractType(type)) {
    const info = infoFor(schema, type.name);
    /** The writer of each concrete type resolveType named (a batch asks about 1,000 times per answer). */
    const byName = new Map<unknown, Writer>();
    return (value, context) => {
      if (value === null || value === undefined) return 'null';
      const resolved = type.resolveType?.(value, context, info, type);
      let write = byName.get(resolved);
      if (write === undefined) {
        const object = concreteType(schema, resolved);
        if (!isObjectType(object)) throw new TypeError(`selectAll: no object type for a value of ${type.toString()}`);
        byName.set(resolved, (write = writerOf(schema, object)));
      }
      return write(value, context);
    };
  }
  const fields = fieldsOf(type).map((field) => ({
    field,
    key: `${JSON.stringify(field.name)}:`,
    info: infoFor(schema, field.name, type),
    write: writerOf(schema, field.type),
    omitsNull: field.extensions[REST_OMITS_NULL] === true,
  }));
  return (value, context) => {
    if (value === null || value === undefined) return 'null';
    let out = '';
    for (const { field, key, info, write, omitsNull } of fields) {
      const resolved = field.resolve ? field.resolve(value, NO_ARGS, context, info) : (value as Record<string, unknown>)[field.name];
      if (resolved instanceof Promise) throw new TypeError(`selectAll: ${type.name}.${field.name} resolved asynchronously`);
      const json = write(resolved, context);
      if (json === undefined || (omitsNull && json === 'null')) continue;
      out += out === '' ? `{${key}${json}` : `,${key}${json}`;
    }
    return out === '' ? '{}' : `${out}}`;
  };
}

/** Strings this short are scanned here for characters JSON escapes; longer ones go to JSON.stringify. */
const SHORT_STRING = 64;

/**
 * JSON.stringify of a string: a short one with nothing to escape (no `"`, `\`, control character or
 * surrogate) is only quoted, anything else goes to JSON.stringify. Every leaf of an answer is a string
 * (ids, units, decimals, dates), and JSON.stringify's call costs about twice the scan, paid on
 * every leaf of every item of a batch.
 */
export function jsonString(text: string): string {
  if (text.length > SHORT_STRING) return JSON.stringify(text);
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    // `"`, `\`, C0 controls, and surrogates (JSON.stringify escapes lone ones; paired ones it keeps, as does the fallback).
    if (code < 0x20 || code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff)) return JSON.stringify(text);
  }
  return `"${text}"`;
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
  return {
    fieldName,
    schema,
    parentType,
    path: { prev: undefined, key: fieldName, typename: parentType?.name },
  } as unknown as GraphQLResolveInfo;
}
