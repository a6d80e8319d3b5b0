import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { isErrorCode } from '../domain/errors';
import type { GraphQLContext } from '../graphql/context';
import { isUnexpected, toGraphQLError } from './errors';
import { requestState } from './request-state';

/**
 * Gives every GraphQL error the contract's `extensions.code` and `extensions.status` (parse and
 * validation errors included, which never reach error masking) and logs unexpected errors with
 * the request id, stack included; the caller sees only a generic message and the id. Errors of
 * execution are logged when it ends, with their path; the others (request parsing, parse,
 * validation, context) never reach it and are logged with the result.
 */
export function useErrorCodes(logger: Logger): Plugin<GraphQLContext> {
  return {
    onExecute({ args }) {
      const context = args.contextValue as GraphQLContext;
      return {
        onExecuteDone({ result }) {
          if (!('errors' in result) || !result.errors) return;
          for (const error of result.errors) {
            if (isUnexpected(error)) {
              const cause = error instanceof GraphQLError ? (error.originalError ?? error) : error;
              context.log.error({ err: cause, requestId: context.requestId, path: error.path }, 'unexpected error');
            }
          }
        },
      };
    },
    onResultProcess({ result, setResult, serverContext }) {
      if (Array.isArray(result) || !('errors' in result) || !result.errors) return;
      const errors = result.errors.map((e) => (isErrorCode(e.extensions?.['code']) ? e : toGraphQLError(e)));
      for (const error of errors) {
        if (error.extensions['code'] === 'INTERNAL' && error.path === undefined) {
          logger.error({ err: error.originalError ?? error, requestId: requestState(serverContext).requestId }, 'unexpected error');
        }
      }
      setResult({ ...result, errors });
    },
  };
}
