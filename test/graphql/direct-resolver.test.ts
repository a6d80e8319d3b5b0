import SchemaBuilder from '@pothos/core';
import ZodPlugin from '@pothos/plugin-zod';
import type { GraphQLField, GraphQLResolveInfo } from 'graphql';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError } from '../../src/domain/errors';
import { zodValidationError } from '../../src/graphql/builder';
import type { GraphQLContext } from '../../src/graphql/context';
import { directResolver } from '../../src/graphql/direct-resolver';
import { schema } from '../../src/graphql/index';

/** A schema of its own, built as builder.ts builds the API's (plugin-zod, the same validationError). */
function testSchema() {
  const b = new SchemaBuilder<{ Context: GraphQLContext }>({ plugins: [ZodPlugin], zod: { validationError: zodValidationError } });
  const Plain = b.inputType('Plain', { fields: (t) => ({ q: t.int({ required: true }), note: t.string() }) });
  const Ruled = b.inputType('Ruled', {
    fields: (t) => ({ q: t.int({ required: true, validate: { schema: z.number().max(3, 'q is at most 3.') } }) }),
  });
  const Outer = b.inputType('Outer', { fields: (t) => ({ inner: t.field({ type: Ruled, required: true }) }) });
  b.queryType({
    fields: (t) => ({
      plain: t.string({ args: { a: t.arg.int() }, resolve: (_, { a }) => `a=${a}` }),
      ruled: t.string({
        args: { n: t.arg.int({ validate: { schema: z.number().max(3, 'n is at most 3.') } }), s: t.arg.string() },
        resolve: (_, args) => JSON.stringify(args),
      }),
      listed: t.string({
        args: {
          items: t.arg.intList({
            required: true,
            validate: { schema: z.array(z.any()).min(1, 'one item at least.').max(2, 'two items at most.') },
          }),
        },
        resolve: (_, { items }) => items.join('+'),
      }),
      // Lists of input objects (the batch's shape): without rules inside, with a rule on a field of
      // the object, and optional. Only the first is checked by its own schema alone.
      objects: t.string({
        args: {
          items: t.arg({
            type: [Plain],
            required: true,
            validate: { schema: z.array(z.any()).min(1, 'one item at least.').max(2, 'two items at most.') },
          }),
        },
        resolve: (_, { items }) => JSON.stringify(items),
      }),
      ruledObjects: t.string({
        args: { items: t.arg({ type: [Ruled], required: true, validate: { schema: z.array(z.any()).max(2, 'two items at most.') } }) },
        resolve: (_, { items }) => JSON.stringify(items),
      }),
      nestedObjects: t.string({
        args: { items: t.arg({ type: [Outer], required: true, validate: { schema: z.array(z.any()).max(2, 'two items at most.') } }) },
        resolve: (_, { items }) => JSON.stringify(items),
      }),
      optionalObjects: t.string({
        args: { items: t.arg({ type: [Plain], required: false, validate: { schema: z.array(z.any()).max(2, 'two items at most.') } }) },
        resolve: (_, { items }) => JSON.stringify(items ?? 'none'),
      }),
      // Not a rule this API has: an asynchronous one, which safeParse cannot run.
      later: t.string({
        args: { n: t.arg.int({ required: true, validate: { schema: z.number().refine(async (n) => n < 3, 'n is below 3.') } }) },
        resolve: (_, { n }) => `n=${n}`,
      }),
    }),
  });
  return b.toSchema();
}

const fieldsOf = (s: typeof schema) => s.getQueryType()!.getFields() as Record<string, GraphQLField<unknown, GraphQLContext>>;
const own = fieldsOf(testSchema());
const context = {} as GraphQLContext;
const info = {} as GraphQLResolveInfo;

/** What a resolver gives for args: its value, or the error it throws or rejects with. */
async function outcome(resolve: (args: Record<string, unknown>) => unknown, args: Record<string, unknown>) {
  try {
    return { value: await resolve(args) };
  } catch (error) {
    return {
      error:
        error instanceof ApiError
          ? { code: error.code, message: error.message, param: error.param, details: error.details }
          : String(error),
    };
  }
}

describe('directResolver: a root field resolved with its zod rules checked synchronously', () => {
  const cases: [field: string, args: Record<string, unknown>][] = [
    ['plain', { a: 1 }],
    ['ruled', { n: 2, s: 'x' }],
    ['ruled', { s: 'no n' }],
    ['ruled', { n: 4, s: 'x' }],
    ['listed', { items: [1, 2] }],
    ['listed', { items: [] }],
    ['listed', { items: [1, 2, 3] }],
    ['objects', { items: [{ q: 1 }, { q: 2, note: 'x' }] }],
    ['objects', { items: [] }],
    ['objects', { items: [{ q: 1 }, { q: 2 }, { q: 3 }] }],
    ['ruledObjects', { items: [{ q: 1 }, { q: 3 }] }],
    ['ruledObjects', { items: [{ q: 1 }, { q: 9 }] }],
    ['ruledObjects', { items: [{ q: 9 }, { q: 9 }, { q: 9 }] }],
    ['nestedObjects', { items: [{ inner: { q: 1 } }] }],
    ['nestedObjects', { items: [{ inner: { q: 1 } }, { inner: { q: 7 } }] }],
    ['optionalObjects', {}],
    ['optionalObjects', { items: null }],
    ['optionalObjects', { items: [{ q: 1 }] }],
    ['optionalObjects', { items: [{ q: 1 }, { q: 2 }, { q: 3 }] }],
    ['later', { n: 2 }],
    ['later', { n: 5 }],
  ];
  it.each(cases)('%s %j: the same value or error as the field as plugin-zod wraps it', async (name, args) => {
    const field = own[name]!;
    const direct = directResolver(field);
    const wrapped = await outcome((a) => field.resolve!(undefined, a, context, info), args);
    expect(await outcome((a) => direct(undefined, a, context, info), args)).toEqual(wrapped);
  });

  it('answers a rule it can check without a promise, and refuses with the contract error', () => {
    const direct = directResolver(own['ruled']!);
    expect(direct(undefined, { n: 3 }, context, info)).toBe('{"n":3}');
    expect(() => direct(undefined, { n: 9 }, context, info)).toThrow(
      expect.objectContaining({ code: 'INVALID_REQUEST', message: 'n is at most 3.', param: 'n' }),
    );
  });

  it('keeps the resolver of a field without rules as it is', () => {
    expect(directResolver(own['plain']!)).toBe(own['plain']!.resolve);
  });

  it("gives the API's own ruled fields the same refusals as their wrapped resolvers", async () => {
    const api = fieldsOf(schema);
    const refused: [string, Record<string, unknown>][] = [
      ['convert', { value: '1', from: 'm', to: 'ft', decimals: 41 }],
      ['convert', { value: '1', from: 'm', to: 'ft', decimals: -1 }],
      ['convertCurrency', { value: '1', from: 'EUR', to: 'USD', decimals: 99 }],
      ['batch', { items: [] }],
      ['batch', { items: Array.from({ length: 1001 }, () => ({ value: '1', from: 'm', to: 'ft' })) }],
    ];
    for (const [name, args] of refused) {
      const field = api[name]!;
      expect(directResolver(field)).not.toBe(field.resolve);
      const wrapped = await outcome((a) => field.resolve!(undefined, a, context, info), args);
      expect(wrapped).toHaveProperty('error.code', 'INVALID_REQUEST');
      expect(await outcome((a) => directResolver(field)(undefined, a, context, info), args)).toEqual(wrapped);
    }
  });
});
