import fc from 'fast-check';
import { coerceInputValue, getNamedType, isEnumType, isLeafType, isNonNullType, isScalarType, type GraphQLArgument } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errors';
import { schema } from '../../src/graphql';
import { checkRestInput, describeCoercionError } from '../../src/http/rest-input';
import type { RestRoute } from '../../src/http/routes';
import { anyJson, hostileText } from '../hostile/values';

/** Every scalar or enum argument of a Query field (what checkRestInput checks without coerceInputValue). */
const LEAF_ARGS = Object.values(schema.getQueryType()!.getFields()).flatMap((field) =>
  field.args.filter((arg) => isLeafType(isNonNullType(arg.type) ? arg.type.ofType : arg.type)).map((arg) => ({ field: field.name, arg })),
);
const POST = { method: 'POST', path: '/v1/x' } as RestRoute;

/** The answer checkRestInput gave before leaf arguments had their own path: coerceInputValue's. */
function reference(arg: GraphQLArgument, value: unknown) {
  try {
    return { value: coerceInputValue(value, arg.type, (_path, _invalid, error) => {
      throw new ApiError('INVALID_REQUEST', describeCoercionError(arg.name, error.message), { param: arg.name });
    }) };
  } catch (error) {
    return { error: { message: (error as ApiError).message, param: (error as ApiError).param } };
  }
}

function actual(arg: GraphQLArgument, value: unknown) {
  try {
    return { value: checkRestInput(POST, [arg], {}, new URLSearchParams(), { [arg.name]: value })[arg.name] };
  } catch (error) {
    return { error: { message: (error as ApiError).message, param: (error as ApiError).param } };
  }
}

describe('checkRestInput on scalar and enum arguments', () => {
  it('covers scalars and an enum of the schema', () => {
    expect(LEAF_ARGS.some(({ arg }) => isEnumType(getNamedType(arg.type)))).toBe(true);
    expect(LEAF_ARGS.some(({ arg }) => isScalarType(getNamedType(arg.type)) && !['Int', 'String', 'Boolean', 'Float', 'ID'].includes(getNamedType(arg.type).name))).toBe(true);
  });

  it.each(LEAF_ARGS.map(({ field, arg }) => [`${field}(${arg.name}: ${String(arg.type)})`, arg] as const))('%s: the same value or error as coerceInputValue', (_name, arg) => {
    const value = fc.oneof(anyJson, hostileText).filter((v) => v !== null && v !== undefined);
    fc.assert(
      fc.property(value, (v) => {
        expect(actual(arg, v)).toEqual(reference(arg, v));
      }),
      { numRuns: 300 },
    );
  });
});
