import { GraphQLError } from 'graphql';
import type { Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errors';
import { toGraphQLError } from '../../src/http/answer/errors';
import { HttpRequestContext } from '../../src/http/front/request-context';
import { withErrorCodes } from '../../src/http/graphql/error-codes';

/** A logger that records its error calls. */
function recordingLogger() {
  const calls: unknown[][] = [];
  return { calls, logger: { error: (...args: unknown[]) => calls.push(args) } as unknown as Logger };
}

/** A request's scope as the front mints it, for a request that authenticates nobody. */
function requestScope() {
  const unused = () => Promise.reject(new Error('not used'));
  return {
    requestContext: new HttpRequestContext(
      { authenticate: unused, loadPublications: unused, quotaState: unused },
      { authorization: null, clientBucket: () => '127.0.0.1' },
    ),
  };
}

/** Codes these errors as the executor does before answering. */
function processResult(logger: Logger, errors: GraphQLError[], serverContext = requestScope()) {
  return withErrorCodes({ errors }, serverContext.requestContext, logger) as any;
}

describe('withErrorCodes', () => {
  it('logs an unexpected error raised outside execution (Yoga masked it, it has no path) with the request id and its cause', () => {
    const { calls, logger } = recordingLogger();
    const serverContext = requestScope();
    const cause = new RangeError('Maximum call stack size exceeded');
    const result = processResult(logger, [toGraphQLError(cause)], serverContext);
    expect(calls).toEqual([[{ err: cause, requestId: serverContext.requestContext.requestId }, 'unexpected error']]);
    expect(result.errors[0].message).not.toMatch(/stack/);
    expect(result.errors[0].extensions).toMatchObject({ code: 'INTERNAL', status: 500 });
  });

  it('leaves execution errors (with a path: logged when execution ends) and expected errors out of that log', () => {
    const { calls, logger } = recordingLogger();
    const inExecution = toGraphQLError(new GraphQLError('boom', { path: ['convert'], originalError: new Error('disk on fire') }));
    processResult(logger, [
      inExecution,
      toGraphQLError(new ApiError('INVALID_REQUEST', 'Bad.')),
      new GraphQLError('Syntax Error: Unexpected <EOF>.'),
    ]);
    expect(calls).toEqual([]);
  });
});
