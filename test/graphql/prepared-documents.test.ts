import { GraphQLError, GraphQLScalarType, GraphQLSchema, GraphQLObjectType, GraphQLString, GraphQLNonNull } from 'graphql';
import { describe, expect, it } from 'vitest';
import { PreparedDocuments } from '../../src/graphql/prepared-documents';

/** A made-up schema: a field that echoes a strict scalar, and one that always fails. */
const Strict = new GraphQLScalarType({
  name: 'Strict',
  serialize: (value) => value,
  parseValue: (value) => {
    if (typeof value !== 'string') throw new GraphQLError('A Strict must be a string.');
    return value;
  },
});
const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: 'Query',
    fields: {
      echo: {
        type: GraphQLString,
        args: { value: { type: new GraphQLNonNull(Strict) } },
        resolve: (_root, args: { value: string }) => args.value,
      },
      broken: {
        type: GraphQLString,
        resolve: () => {
          throw new Error('broken');
        },
      },
    },
  }),
});
const NO_VALIDATION_BEFORE = () => [];
const LEAVE = () => undefined;

describe('PreparedDocuments', () => {
  it('parses a text once and keeps its syntax error, the same object each time', () => {
    const prepared = new PreparedDocuments(schema, 1024 * 1024);
    expect(prepared.parse('{ echo(value: "a") }')).toBe(prepared.parse('{ echo(value: "a") }'));
    let first: unknown;
    let second: unknown;
    try {
      prepared.parse('{');
    } catch (error) {
      first = error;
    }
    try {
      prepared.parse('{');
    } catch (error) {
      second = error;
    }
    expect(first).toBeInstanceOf(GraphQLError);
    expect(second).toBe(first);
  });

  it('validates a document once, with the caller’s check first', () => {
    const prepared = new PreparedDocuments(schema, 1024 * 1024);
    const document = prepared.parse('{ nope }');
    let checks = 0;
    const check = () => {
      checks += 1;
      return [];
    };
    expect(prepared.validate(document, check, LEAVE).map((error) => error.message)).toEqual(['Cannot query field "nope" on type "Query".']);
    expect(prepared.validate(document, check, LEAVE)).toBe(prepared.validate(document, check, LEAVE));
    expect(checks).toBe(1);
    const refused = new GraphQLError('over the limits');
    expect(prepared.validate(prepared.parse('{ echo(value: "x") }'), () => [refused], LEAVE)).toEqual([refused]);
  });

  it('runs an operation on graphql-js first, then compiled, with the same answers', async () => {
    const prepared = new PreparedDocuments(schema, 1024 * 1024);
    const document = prepared.parse('query($v: Strict!) { echo(value: $v) broken }');
    expect(prepared.validate(document, NO_VALIDATION_BEFORE, LEAVE)).toEqual([]);
    const args = { contextValue: {}, variableValues: { v: 'x' }, operationName: undefined };
    const runs = [];
    for (let run = 0; run < 3; run += 1) runs.push(await prepared.execute(document, args));
    expect(document.operations.get('')?.compiled).toBeTruthy();
    for (const result of runs) {
      expect(result.data).toEqual({ echo: 'x', broken: null });
      expect(result.errors?.map((error) => [error.message, error.path])).toEqual([['broken', ['broken']]]);
    }
  });

  it('answers refused variables in graphql-js’s words once compiled too (the scalar’s own reason)', async () => {
    const prepared = new PreparedDocuments(schema, 1024 * 1024);
    const document = prepared.parse('query($v: Strict!) { echo(value: $v) }');
    prepared.validate(document, NO_VALIDATION_BEFORE, LEAVE);
    await prepared.execute(document, { contextValue: {}, variableValues: { v: 'x' }, operationName: undefined });
    const refused = await prepared.execute(document, { contextValue: {}, variableValues: { v: 12 }, operationName: undefined });
    expect(document.operations.get('')?.compiled).toBeTruthy();
    expect('data' in refused).toBe(false);
    expect(refused.errors?.[0]?.message).toBe('Variable "$v" got invalid value 12; A Strict must be a string.');
  });

  it('holds a flood of distinct documents within its byte budget', () => {
    const budget = 256 * 1024;
    const prepared = new PreparedDocuments(schema, budget);
    for (let i = 0; i < 5000; i += 1) prepared.parse(`{ a${i}: echo(value: "${i}") }`);
    expect(prepared.bytes).toBeGreaterThan(budget / 2);
    expect(prepared.bytes).toBeLessThanOrEqual(budget);
  });
});
