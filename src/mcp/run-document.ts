import type { ExecutionResult } from 'graphql';
import type { GraphQLExecutor } from '../http/graphql/graphql-executor';
import { persistedDocument, type McpOperation } from './documents';
import type { HttpRequestContext } from '../http/front/request-context';

/** Runs one persisted operation for the request being served; its result as a GraphQL request would get it. */
export type RunDocument = (operation: McpOperation, variables: Record<string, unknown>) => Promise<ExecutionResult>;

/**
 * The one executor of GraphQL requests, for a tool: the manifest's document run by the GraphQL
 * executor with the request's own context (its key, rate limit, plan, quota charge and language),
 * coded and costed as a GraphQL POST's result is. A tool is a GraphQL request whose document the
 * server chose.
 */
export function documentRunner(execute: GraphQLExecutor): (context: HttpRequestContext) => RunDocument {
  return (context) => async (operation, variables) => {
    const { text } = persistedDocument(operation);
    const { result } = await execute({ params: { query: text, variables, operationName: operation }, method: 'POST', context });
    return result;
  };
}
