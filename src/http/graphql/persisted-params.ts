import type { ExecutionResult } from 'graphql';
import type { GraphQLParams } from 'graphql-yoga';
import { ApiError } from '../../domain/errors';
import { persistedQueryNotFound, persistedQueryStep } from '../../domain/persisted-query';
import type { PersistedDocuments } from '../../services/persisted-documents';
import { toGraphQLError } from '../answer/errors';

/** What the persisted-documents step made of a request's parameters. */
export interface PersistedParams {
  /** The parameters to run: a hash alone replaced by its document; `query` is `''` when the request ends here. */
  params: GraphQLParams;
  /** The request's result when it ends here (a malformed extension, a hash no store holds). */
  result?: ExecutionResult;
  /** A document sent with its hash, to register once it reaches execution. */
  registration?: { hash: string; document: string };
}

/**
 * Apollo's automatic persisted queries on every GraphQL request (POST and GET). A hash alone is
 * replaced by its document, which then goes through every step a sent document goes through (size,
 * nesting, depth, cost, rate limits); a hash no store holds answers PERSISTED_QUERY_NOT_FOUND; a
 * document with a hash that is not its SHA-256 answers INVALID_REQUEST. A document sent with its
 * hash is registered only once it reaches execution, that is once it passed the document limits
 * and validation: a flood of registrations costs each request its rate limit, and holds no
 * document that could not run.
 *
 * After the request's rate limit is spent (`rateLimited`: it refused the request, which stays
 * refused and registers nothing) and before the document limits (which then check the document a
 * hash stood for).
 */
export function persistedParams(
  params: GraphQLParams,
  rateLimited: boolean,
  documents: PersistedDocuments,
): PersistedParams | Promise<PersistedParams> {
  // The parameter check that follows wants a query string, even where the request ends here.
  const ended = (result: ExecutionResult | undefined): PersistedParams => ({
    params: typeof params.query === 'string' ? params : { ...params, query: '' },
    ...(result ? { result } : {}),
  });
  let step;
  try {
    step = persistedQueryStep(params.query, params.extensions);
  } catch (error) {
    if (error instanceof ApiError) return ended({ errors: [toGraphQLError(error)] });
    throw error;
  }
  if (step.kind === 'none') return { params };
  // The request's rate limit refused it: its result is that refusal.
  if (rateLimited) return ended(undefined);
  if (step.kind === 'register') return { params, registration: { hash: step.hash, document: step.document } };
  const found = documents.find(step.hash);
  const serve = (document: string | undefined) =>
    document === undefined ? ended({ errors: [toGraphQLError(persistedQueryNotFound())] }) : { params: { ...params, query: document } };
  return found instanceof Promise ? found.then(serve) : serve(found);
}
