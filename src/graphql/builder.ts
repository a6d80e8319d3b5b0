import SchemaBuilder from '@pothos/core';
import ZodPlugin from '@pothos/plugin-zod';
import { ApiError } from '../domain/errors';
import type { GraphQLContext } from './context';

/** Sets up plugins and scalar types; defines no object types (one file per area does that). */
export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  DefaultFieldNullability: false;
  Scalars: {
    Decimal: { Input: string; Output: string };
    Date: { Input: string; Output: string };
  };
}>({
  plugins: [ZodPlugin],
  defaultFieldNullability: false,
  zod: {
    // A failed argument rule is the caller's fault: INVALID_REQUEST naming the argument.
    validationError: (error) => {
      const issue = error.issues[0];
      const param = issue?.path.map(String).join('.') || undefined;
      return new ApiError('INVALID_REQUEST', issue?.message ?? 'Invalid request.', param ? { param } : {});
    },
  },
});

builder.queryType({
  description: 'Every capability of the Measurement API. Unit catalogue and health are public; conversions need an API key.',
});
