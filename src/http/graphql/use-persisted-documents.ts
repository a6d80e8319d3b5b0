import type { GraphQLParams, Plugin } from 'graphql-yoga';
import { ApiError } from '../../domain/errors';
import { persistedQueryNotFound, persistedQueryStep } from '../../domain/persisted-query';
import type { GraphQLContext } from '../../graphql/context';
import type { PersistedDocuments } from '../../services/persisted-documents';
import type { RequestContext } from '../../services/request-context';
import { toGraphQLError } from '../answer/errors';
import { requestContextOf } from '../front/request-context';

/**
 * Apollo's automatic persisted queries on every GraphQL request (POST and GET, Yoga's Fetch handler and the
 * front's JSON POST path alike: both run onParams). A hash alone is replaced by its document, which then goes
 * through every step a sent document goes through (size, nesting, depth, cost, rate limits); a
 * hash no store holds answers PERSISTED_QUERY_NOT_FOUND; a document with a hash that is not its
 * SHA-256 answers INVALID_REQUEST. A document sent with its hash is registered only once it
 * reaches execution, that is once it passed the document limits and validation: a flood of
 * registrations costs each request its rate limit, and holds no document that could not run.
 *
 * After useRequestRateLimit (a refused request stays refused, and registers nothing) and before
 * useGraphQLLimits (which then checks the document a hash stood for).
 */
export function usePersistedDocuments(documents: PersistedDocuments): Plugin<GraphQLContext> {
  const pending = new WeakMap<RequestContext, { hash: string; document: string }>();
  return {
    onParams({ params, setParams, setResult, context }) {
      const end = (error: ApiError) => {
        setResult({ errors: [toGraphQLError(error)] });
        // Yoga's own parameter check, which runs after every plugin, wants a query string.
        if (typeof params.query !== 'string') setParams({ ...params, query: '' });
      };
      let step;
      try {
        step = persistedQueryStep(params.query, params.extensions);
      } catch (error) {
        if (error instanceof ApiError) return end(error);
        throw error;
      }
      if (step.kind === 'none') return;
      const requestContext = requestContextOf(context);
      if (wasRefused(requestContext)) {
        if (typeof params.query !== 'string') setParams({ ...params, query: '' });
        return;
      }
      if (step.kind === 'register') {
        pending.set(requestContext, step);
        return;
      }
      const found = documents.find(step.hash);
      const serve = (document: string | undefined) => (document === undefined ? end(persistedQueryNotFound()) : setParams(withQuery(params, document)));
      return found instanceof Promise ? found.then(serve) : serve(found);
    },
    onExecute({ args }) {
      const requestContext = args.contextValue.requestContext;
      const registration = pending.get(requestContext);
      if (registration === undefined) return;
      pending.delete(requestContext);
      return documents.register(registration.hash, registration.document);
    },
  };
}

function withQuery(params: GraphQLParams, query: string): GraphQLParams {
  return { ...params, query };
}

/** useRequestRateLimit refused the request (its spend is on the record otherwise): its result is that refusal. */
function wasRefused(context: RequestContext): boolean {
  return !context.rateLimitSpend.paid;
}
