import { GraphQLError } from 'graphql';
import type { Logger } from 'pino';
import { ApiError, ERROR_STATUS, INTERNAL_MESSAGE, isErrorCode, type ErrorCode } from '../../domain/errors';
import { clientMessage, errorBody } from '../../graphql/error-body';
import { errorHeaders } from './error-headers';
import { JSON_CONTENT_TYPE, lowerCased, toResponse, type ResponseParts } from './answer-parts';
import type { HttpRequestContext } from '../front/request-context';

/*
 * The one place errors are rendered, from the one table (domain/errors.ts), for both surfaces: REST
 * (restErrorParts, and the same answer as a Fetch Response) and GraphQL (toGraphQLError, graphQLErrorOf).
 */

/** The ApiError behind any error thrown during a request; unknown errors become INTERNAL. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof GraphQLError) {
    const original = innermost(error);
    if (original instanceof ApiError) return original;
    const code = error.extensions?.['code'];
    if (isErrorCode(code) && code !== 'INTERNAL') {
      const param = error.extensions?.['param'];
      return new ApiError(code, error.message, typeof param === 'string' ? { param } : {});
    }
    const byHttpStatus = HTTP_STATUS_CODES[Number((error.extensions?.['http'] as { status?: number } | undefined)?.status)];
    if (byHttpStatus) return new ApiError(byHttpStatus, error.message);
    // A GraphQLError with no other cause is a rejected input (syntax, validation, variable coercion),
    // whatever code graphql-js or Yoga gave it (GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED...).
    if (original === undefined || original instanceof GraphQLError) {
      if (error.message === VALIDATION_ABORTED) return new ApiError('INVALID_REQUEST', VALIDATION_ABORTED_MESSAGE);
      const param = /^Variable "\$(\w+)"/.exec(error.message)?.[1];
      return new ApiError('INVALID_REQUEST', error.message, param ? { param } : {});
    }
  }
  return new ApiError('INTERNAL', INTERNAL_MESSAGE);
}

/** graphql-js's last error when a document breaks its rules more than 100 times: it stops validating there. */
export const VALIDATION_ABORTED = 'Too many validation errors, error limit reached. Validation aborted.';
const VALIDATION_ABORTED_MESSAGE =
  'The document has more than 100 validation errors; validation stopped after the first 100, listed before this one. Correct those and send it again.';

/** Yoga's own HTTP-level refusals of a GraphQL request, by the status it gives them (one code each in the table). */
const HTTP_STATUS_CODES: Partial<Record<number, ErrorCode>> = Object.fromEntries(
  (['METHOD_NOT_ALLOWED', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'] as const).map((code) => [ERROR_STATUS[code], code]),
);

/** The error a request ultimately failed with, and whether it was expected (an ApiError) or a bug. */
export function isUnexpected(error: unknown): boolean {
  return toApiError(error).code === 'INTERNAL';
}

function innermost(error: GraphQLError): Error | undefined {
  let current: Error | undefined = error.originalError;
  while (current instanceof GraphQLError && current.originalError) current = current.originalError;
  return current;
}

/** `{"error": {...}}` with the table's status, the headers the error requires, never cached. */
export function restErrorParts(error: ApiError, requestId: string): ResponseParts & { body: string } {
  const body = JSON.stringify({ error: errorBody(error, requestId) });
  return {
    status: error.status,
    headers: {
      'content-type': JSON_CONTENT_TYPE,
      'cache-control': 'no-store',
      'content-length': String(Buffer.byteLength(body)),
      ...lowerCased(errorHeaders(error)),
    },
    body,
  };
}

/**
 * The ApiError a request failed with, its code noted on the context (its access-log line); an error
 * that is not an ApiError (a bug, an outage) is logged with the request id first.
 */
export function failureOf(error: unknown, context: HttpRequestContext, log: Logger): ApiError {
  if (!(error instanceof ApiError)) log.error({ err: error, requestId: context.requestId }, 'unexpected error');
  const api = toApiError(error);
  context.errorCode = api.code;
  return api;
}

/** The same answer for a request whose context notes the code (its access-log line). */
export function errorParts(error: ApiError, context: HttpRequestContext): ResponseParts {
  context.errorCode ??= error.code;
  return restErrorParts(error, context.requestId);
}

/** The same answer as a Fetch Response (SOFA's error handler, pages). */
export function restErrorResponse(error: ApiError, requestId: string): Response {
  return toResponse(restErrorParts(error, requestId));
}

/**
 * The same error as a GraphQL error: `extensions.code` and `extensions.status` from the same table.
 * Yoga also masks what is thrown outside execution (request parsing, parse, validation): that is
 * INTERNAL, and keeps the thrown error as its cause for the log.
 */
export function toGraphQLError(error: unknown): GraphQLError {
  const api = toApiError(error);
  const located = error instanceof GraphQLError ? error : undefined;
  return new GraphQLError(api.code === 'INTERNAL' ? INTERNAL_MESSAGE : clientMessage(api, 'graphql'), {
    nodes: located?.nodes,
    source: located?.source,
    positions: located?.positions,
    path: located?.path,
    originalError: located ? located.originalError : error instanceof Error ? error : undefined,
    extensions: {
      code: api.code,
      status: api.status,
      ...(api.param === undefined ? {} : { param: api.param }),
      // Yoga reads `http` for the response status and headers (Allow on 405), and does not send it.
      ...(located?.extensions?.['http'] ? { http: located.extensions['http'] } : {}),
    },
  });
}

/**
 * A GraphQL error for an ApiError raised outside execution (request checks): code and status from the
 * table, and with `http` the HTTP status Yoga should answer with. It keeps no originalError, so
 * Yoga's masking (which treats a non-GraphQL cause as unexpected) leaves it as it is.
 */
export function graphQLErrorOf(error: ApiError, options: { http?: boolean } = {}): GraphQLError {
  return new GraphQLError(clientMessage(error, 'graphql'), {
    extensions: {
      code: error.code,
      status: error.status,
      ...(error.param === undefined ? {} : { param: error.param }),
      ...(options.http ? { http: { status: error.status, headers: errorHeaders(error) } } : {}),
    },
  });
}
