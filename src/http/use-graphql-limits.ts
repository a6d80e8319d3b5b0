import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { documentLimitsRule, GRAPHQL_LIMITS, nestingOf } from '../graphql/limits';

/** Applies the document limits of contract section 7 to every GraphQL request (REST's documents are fixed). */
export function useGraphQLLimits(): Plugin {
  return {
    onParams({ params }) {
      if (typeof params.query === 'string' && Buffer.byteLength(params.query) > GRAPHQL_LIMITS.maxDocumentBytes) {
        throw createGraphQLError(`The GraphQL document is larger than ${GRAPHQL_LIMITS.maxDocumentBytes / 1024} KiB.`, {
          extensions: { code: 'PAYLOAD_TOO_LARGE', status: 413, http: { status: 413 } },
        });
      }
      if (typeof params.query === 'string' && nestingOf(params.query) > GRAPHQL_LIMITS.maxNesting) {
        throw createGraphQLError(`The GraphQL document nests brackets more than ${GRAPHQL_LIMITS.maxNesting} levels deep.`, {
          extensions: { code: 'INVALID_REQUEST', status: 400 },
        });
      }
    },
    onValidate({ addValidationRule }) {
      addValidationRule(documentLimitsRule);
    },
  };
}
