import { ERROR_CODES, type ErrorBody } from '../domain/errors';
import { builder } from './builder';
import { REST_OMITS_NULL } from './serialize';

export const ErrorCodeEnum = builder.enumType('ErrorCode', {
  description: 'Every error code the API answers with; the HTTP status of each is fixed (see the OpenAPI document).',
  values: ERROR_CODES,
});

export const ErrorRef = builder.objectRef<ErrorBody>('Error').implement({
  description: 'Why one request or one batch item failed.',
  fields: (t) => ({
    code: t.field({ type: ErrorCodeEnum, resolve: (e) => e.code }),
    message: t.exposeString('message', { description: 'A human sentence; never a stack trace.' }),
    status: t.exposeInt('status', { description: 'The HTTP status this code maps to.' }),
    param: t.string({
      nullable: true,
      description: 'The one input at fault, when there is one.',
      resolve: (e) => e.param ?? null,
      extensions: { [REST_OMITS_NULL]: true },
    }),
    requestId: t.exposeString('requestId'),
  }),
});
