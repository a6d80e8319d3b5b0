import { isEnumType, type GraphQLSchema } from 'graphql';
import { CARRY_REASONS } from '../../domain/currency/explain-date';

type Json = Record<string, unknown>;

/**
 * Closed sets that are strings in GraphQL (their values are not GraphQL names: `not-yet-published`)
 * but enums on the REST wire: named components, so that generated clients get one named type and
 * documentation one list. Every other closed set is a GraphQL enum, and SOFA names it.
 */
export const WIRE_ENUMS: Readonly<Record<string, Json>> = {
  CarryReason: {
    title: 'CarryReason',
    type: 'string',
    enum: [...CARRY_REASONS],
    description: 'Why an earlier publication answers for the day asked.',
  },
};

/**
 * Answer schemas (`isAnswer`: GraphQL output objects, not inputs) require every member always sent,
 * `null` included when the value is empty: all but those a REST answer leaves out when null
 * (`omitted`: the `Type.field` coordinates declared REST_OMITS_NULL in src/graphql).
 */
export function requiredMembers(
  schemas: Record<string, Json>,
  isAnswer: (name: string) => boolean,
  omitted: ReadonlySet<string>,
): Record<string, Json> {
  const result: Record<string, Json> = {};
  for (const [name, schema] of Object.entries(schemas)) {
    const properties = schema['properties'] as Record<string, Json> | undefined;
    if (schema['type'] !== 'object' || !properties || !isAnswer(name)) {
      result[name] = schema;
      continue;
    }
    result[name] = { ...schema, required: Object.keys(properties).filter((member) => !omitted.has(`${name}.${member}`)) };
  }
  return result;
}

const sameSet = (a: readonly unknown[], b: readonly unknown[]) => a.length === b.length && a.every((v) => b.includes(v));

/**
 * Every inline string enum equal to a named enum component becomes a reference to it (its
 * description kept beside the reference, as OpenAPI 3.1 allows); `nullable` forms (`type:
 * [string, null]`) become "the enum, or null". The components themselves are left as they are.
 */
export function namedEnums(document: Json): Json {
  const schemas = (document['components'] as Json)['schemas'] as Record<string, Json>;
  const named = Object.entries(schemas).filter(([, s]) => s['type'] === 'string' && Array.isArray(s['enum']));
  const visit = (value: unknown, inComponent: string | undefined): unknown => {
    if (Array.isArray(value)) return value.map((v) => visit(v, inComponent));
    if (typeof value !== 'object' || value === null) return value;
    const node = value as Json;
    const values = node['enum'];
    if (Array.isArray(values) && inComponent === undefined) {
      const match = named.find(([, s]) => sameSet(s['enum'] as unknown[], values));
      const nullable = Array.isArray(node['type']) && (node['type'] as string[]).includes('null');
      if (match) {
        const ref = { $ref: `#/components/schemas/${match[0]}` };
        const description = typeof node['description'] === 'string' ? { description: node['description'] } : {};
        return nullable ? { ...description, oneOf: [ref, { type: 'null' }] } : { ...ref, ...description };
      }
    }
    return Object.fromEntries(Object.entries(node).map(([key, inner]) => [key, visit(inner, undefined)]));
  };
  const visitedSchemas = Object.fromEntries(
    Object.entries(schemas).map(([name, s]) => [name, named.some(([n]) => n === name) ? s : visit(s, undefined)]),
  );
  const { components, ...rest } = document;
  const visitedRest = visit(rest, undefined) as Json;
  return { ...visitedRest, components: { ...(components as Json), schemas: visitedSchemas } };
}

/** Members whose GraphQL type is a plain string but whose REST values are a closed set: `reason` (CarryReason, or null). */
export function closedSetMembers(schemas: Record<string, Json>): Record<string, Json> {
  const patch = (name: string, member: string, schema: (old: Json) => Json) => {
    const object = schemas[name];
    const properties = object?.['properties'] as Record<string, Json> | undefined;
    if (!object || !properties?.[member]) throw new Error(`The OpenAPI schema ${name} has no member ${member} to type.`);
    schemas[name] = { ...object, properties: { ...properties, [member]: schema(properties[member]) } };
  };
  const described = (old: Json) => (typeof old['description'] === 'string' ? { description: old['description'] } : {});
  patch('DateResolution', 'reason', (old) => ({
    ...described(old),
    oneOf: [{ $ref: '#/components/schemas/CarryReason' }, { type: 'null' }],
  }));
  return schemas;
}

/** The enum components SOFA made of GraphQL enums, with the enum type's description (SOFA leaves it out). */
export function describedEnums(schema: GraphQLSchema, schemas: Record<string, Json>): Record<string, Json> {
  return Object.fromEntries(
    Object.entries(schemas).map(([name, component]) => {
      const type = schema.getType(name);
      return [
        name,
        isEnumType(type) && type.description && component['description'] === undefined
          ? { ...component, description: type.description }
          : component,
      ];
    }),
  );
}

/**
 * A batch item answers `{"kind", "data"}` or `{"kind", "error"}` (the contract's shapes, with what
 * the item was read as). A success is one branch per kind, `kind` a constant beside the `data` it
 * names (Conversion for `unit`, CurrencyConversion for `currency`): generated clients narrow `data`
 * on `kind`. Each branch declares the other's member absent (the schema `false`): a success and a
 * failure exclude each other, and TypeScript narrows on `r.error` (or `r.data`) alone.
 */
export function exclusiveBatchBranches(schemas: Record<string, Json>): Record<string, Json> {
  const success = schemas['BatchSuccess'];
  const failure = schemas['BatchFailure'];
  const successMembers = success?.['properties'] as Record<string, Json> | undefined;
  const failureMembers = failure?.['properties'] as Record<string, Json> | undefined;
  if (!successMembers?.['data'] || !successMembers['kind'] || !failureMembers?.['error'] || !failureMembers['kind'])
    throw new Error('The OpenAPI schemas BatchSuccess and BatchFailure have no members kind, data and error.');
  const branch = (kind: string, data: string): Json => ({
    type: 'object',
    title: `BatchSuccess (${kind})`,
    required: ['kind', 'data'],
    additionalProperties: false,
    properties: {
      kind: { type: 'string', const: kind, description: successMembers['kind']!['description'] },
      data: { $ref: `#/components/schemas/${data}` },
      error: false,
    },
  });
  schemas['BatchSuccess'] = {
    description: success!['description'],
    oneOf: [branch('unit', 'Conversion'), branch('currency', 'CurrencyConversion')],
  };
  schemas['BatchFailure'] = { ...failure, properties: { ...failureMembers, data: false } };
  const result = schemas['BatchResult']?.['properties'] as Record<string, Json> | undefined;
  if (result?.['results'])
    result['results'] = {
      ...result['results'],
      description:
        'One entry per item, in the order sent: `data` when it converted, `error` when it failed, never both; `kind` on each says what the item was read as.',
    };
  return schemas;
}
