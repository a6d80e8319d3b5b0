import { GraphQLError, type ExecutionResult } from 'graphql';
import type { Logger } from 'pino';
import { ERROR_STATUS, isErrorCode } from '../../domain/errors';
import { isUnexpected, toApiError, toGraphQLError } from '../answer/errors';
import type { HttpRequestContext } from '../front/request-context';
import type { RequestContext } from '../../services/request-context';

/** Logs the unexpected errors of an execution, with their path and the request id, before they are masked. */
export function logUnexpectedErrors(errors: ExecutionResult['errors'], context: RequestContext, logger: Logger): void {
  if (!errors) return;
  for (const error of errors) {
    if (isUnexpected(error)) {
      const cause = error instanceof GraphQLError ? (error.originalError ?? error) : error;
      logger.error({ err: cause, requestId: context.requestId, path: error.path }, 'unexpected error');
    }
  }
}

/**
 * A single result's errors with the contract's `extensions.code` and `extensions.status` (parse and
 * validation errors and the request's refusals included, which never reach error masking), the
 * longest Retry-After noted on the request's context, and unexpected request-level errors logged
 * with the request id (the caller sees only a generic message and the id). The same result when it
 * has no errors.
 */
export function withErrorCodes(result: ExecutionResult, context: HttpRequestContext, logger: Logger): ExecutionResult {
  if (!result.errors) return result;
  const requestError = !('data' in result) || result.data === undefined;
  const errors = result.errors.map((e) => {
    const error = isErrorCode(e.extensions?.['code']) ? e : toGraphQLError(e);
    context.errorCode ??= error.extensions['code'] as string;
    const retryAfter = toApiError(error).details.retryAfterSeconds;
    if (retryAfter !== undefined) context.noteRetryAfter(retryAfter);
    return requestError ? withSpecStatus(error) : error;
  });
  for (const error of errors) {
    if (error.extensions['code'] === 'INTERNAL' && error.path === undefined) {
      logger.error({ err: error.originalError ?? error, requestId: context.requestId }, 'unexpected error');
    }
  }
  return { ...result, errors };
}

/**
 * GraphQL over HTTP: a request that executed nothing (no `data`) answers `application/graphql-response+json`
 * with its error's status; `spec` tells Yoga to keep 200 for `application/json`, as that media type requires.
 * An error that already names its HTTP status (413, 405, 415) keeps it under both.
 */
function withSpecStatus(error: GraphQLError): GraphQLError {
  if (error.extensions['http']) return error;
  const code = error.extensions['code'];
  if (!isErrorCode(code)) return error;
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: { ...error.extensions, http: { status: ERROR_STATUS[code], spec: true } },
  });
}
