import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errors';
import { clientMessage, errorBody } from '../../src/graphql/error-body';

/** The domain raises codes and data; the edge writes the route hints its messages point to. */
describe('an error as a client reads it', () => {
  it.each([
    ['units', "Unit 'foo' is not known.", "Unit 'foo' is not known. See GET /v1/units."],
    ['categories', "Category 'x' does not exist.", "Category 'x' does not exist. See GET /v1/categories."],
    ['currencies', "Currency 'XYZ' is not supported.", "Currency 'XYZ' is not supported. See GET /v1/currencies."],
  ] as const)('names the REST route of the %s listing after the message', (seeAlso, message, shown) => {
    expect(clientMessage(new ApiError('UNKNOWN_UNIT', message, { seeAlso }))).toBe(shown);
    expect(clientMessage(new ApiError('UNKNOWN_UNIT', message, { seeAlso }), 'rest')).toBe(shown);
  });

  it.each([
    ['units', "Unit 'foo' is not known.", "Unit 'foo' is not known. See the `units` field."],
    ['categories', "Category 'x' does not exist.", "Category 'x' does not exist. See the `categories` field."],
    ['currencies', "Currency 'XYZ' is not supported.", "Currency 'XYZ' is not supported. See the `currencies` field."],
  ] as const)('names the GraphQL field of the %s listing in GraphQL, never a route', (seeAlso, message, shown) => {
    const text = clientMessage(new ApiError('UNKNOWN_UNIT', message, { seeAlso }), 'graphql');
    expect(text).toBe(shown);
    expect(text).not.toMatch(/GET|POST|\/v1/);
  });

  it('leaves a message without a listing as it is, and never shows a key', () => {
    expect(clientMessage(new ApiError('INVALID_REQUEST', 'date applies to currency conversions only.'))).toBe(
      'date applies to currency conversions only.',
    );
    const key = `msr_test_${'a'.repeat(32)}`;
    expect(clientMessage(new ApiError('INVALID_REQUEST', `'${key}' is not a unit.`))).not.toContain(key);
  });

  it('is the contract error object, with the table status and the param when there is one', () => {
    const body = errorBody(new ApiError('NOT_FOUND', "Unit 'x' does not exist.", { param: 'id', seeAlso: 'units' }), 'req-1');
    expect(body).toEqual({
      code: 'NOT_FOUND',
      message: "Unit 'x' does not exist. See GET /v1/units.",
      status: 404,
      param: 'id',
      requestId: 'req-1',
    });
    expect(errorBody(new ApiError('INTERNAL', 'x'), 'req-2')).not.toHaveProperty('param');
  });
});
