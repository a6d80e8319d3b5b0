import type { Plugin } from 'graphql-yoga';
import { ApiError } from '../domain/errors';
import { documentLimitErrors, GRAPHQL_LIMITS, nestingOf } from '../graphql/limits';
import { graphQLErrorOf } from './errors';

/** Applies the document limits of contract section 7 to every GraphQL request (REST's documents are fixed). */
export function useGraphQLLimits(): Plugin {
  return {
    onParams({ params }) {
      if (typeof params.query === 'string' && Buffer.byteLength(params.query) > GRAPHQL_LIMITS.maxDocumentBytes) {
        const message = `The GraphQL document is larger than ${GRAPHQL_LIMITS.maxDocumentBytes / 1024} KiB.`;
        throw graphQLErrorOf(new ApiError('PAYLOAD_TOO_LARGE', message), { http: true });
      }
      if (typeof params.query === 'string' && nestingOf(params.query) > GRAPHQL_LIMITS.maxNesting) {
        throw graphQLErrorOf(new ApiError('INVALID_REQUEST', `The GraphQL document nests brackets more than ${GRAPHQL_LIMITS.maxNesting} levels deep.`));
      }
    },
    // Before graphql's own rules, which then never see a document over the limits (a fragment bomb).
    onValidate({ params, setResult }) {
      const errors = documentLimitErrors(params.documentAST);
      if (errors.length > 0) setResult(errors);
    },
  };
}
