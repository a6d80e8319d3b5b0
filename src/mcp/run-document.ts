import type { IncomingMessage } from 'node:http';
import type { ExecutionResult } from 'graphql';
import type { Logger } from 'pino';
import type { YogaServerInstance } from 'graphql-yoga';
import type { GraphQLContext } from '../graphql/context';
import type { ServerContext } from '../http/front/request-context';
import { toGraphQLError } from '../http/answer/errors';
import { paramsRequest } from '../http/graphql/graphql-http';
import { withCostExtensions } from '../http/graphql/use-cost-extensions';
import { withErrorCodes } from '../http/graphql/use-error-codes';
import type { QuotaMeter } from '../services/quota';
import type { RequestContext } from '../services/request-context';
import { persistedDocument, type McpOperation } from './documents';

/** Runs one persisted operation for the request being served; its result as a GraphQL request would get it. */
export type RunDocument = (operation: McpOperation, variables: Record<string, unknown>) => Promise<ExecutionResult>;

export interface DocumentRunnerOptions {
  yoga: Pick<YogaServerInstance<ServerContext, GraphQLContext>, 'getResultForParams'>;
  quota: QuotaMeter;
  log: Logger;
  clock: () => Date;
}

/**
 * The one executor of GraphQL requests, for a tool: the manifest's document run by Yoga's
 * getResultForParams with the request's own context (its key, rate limit, plan, quota charge and
 * language), then coded and costed as a GraphQL request's are and costs its results. A tool is a
 * GraphQL request whose document the server chose.
 */
export function documentRunner(options: DocumentRunnerOptions): (req: IncomingMessage, context: RequestContext) => RunDocument {
  return (req, context) => async (operation, variables) => {
    const { text } = persistedDocument(operation);
    let result: ExecutionResult;
    try {
      const params = { query: text, variables, operationName: operation };
      result = (await options.yoga.getResultForParams({ params, request: paramsRequest(req) }, { req, requestContext: context })) as ExecutionResult;
    } catch (error) {
      options.log.error({ err: error, requestId: context.requestId }, 'unexpected error');
      result = { errors: [toGraphQLError(error)] };
    }
    return withCostExtensions(withErrorCodes(result, context, options.log), context, options.quota, options.clock);
  };
}
