import type { DocumentNode, GraphQLError } from 'graphql';
import { ApiError } from '../../domain/errors';
import { documentLimitErrors, GRAPHQL_LIMITS, nestingOf } from '../../graphql/limits';
import { graphQLErrorOf } from '../answer/errors';

/** How many document texts within the limits are remembered (a client sends the same few), up to what length each and in all (UTF-16 units: at most 2 MB). */
const REMEMBERED_TEXTS = 1000;
const REMEMBERED_LENGTH = 4096;
const REMEMBERED_TOTAL = 1024 * 1024;

/**
 * The document limits of contract section 7 on every GraphQL request (REST's documents are fixed).
 * A document that passed is remembered, by its text for the bracket count (documentTextRefusal) and
 * by its parsed AST (which the document cache hands out again for the same text) for the measure
 * (documentLimitRefusals, run before graphql's own rules, which then never see a document over
 * the limits: a fragment bomb): a client sending the same document pays for neither again.
 */

/** Parsed documents found within the limits (the parser caches hand out the same AST for the same text). */
const documentsWithin = new WeakSet<DocumentNode>();

/** The document's breaches of the limits (none for a document that passed once, which is remembered). */
export function documentLimitRefusals(document: DocumentNode): GraphQLError[] {
  if (documentsWithin.has(document)) return [];
  const errors = documentLimitErrors(document);
  if (errors.length === 0) documentsWithin.add(document);
  return errors;
}

/** Texts found within the limits, for any app of this process (the limits are constants): a client sends the same few documents. */
const textsWithin = new Set<string>();
let rememberedLength = 0;

/**
 * Why a document's text is refused before it is parsed (its size in bytes, then its bracket
 * nesting), or undefined when it is within both. A text that passed is remembered.
 */
export function documentTextRefusal(query: string): GraphQLError | undefined {
  if (textsWithin.has(query)) return undefined;
  const refusal = textRefusal(query);
  if (refusal === undefined && query.length <= REMEMBERED_LENGTH) {
    if (textsWithin.size >= REMEMBERED_TEXTS || rememberedLength + query.length > REMEMBERED_TOTAL) {
      textsWithin.clear();
      rememberedLength = 0;
    }
    textsWithin.add(query);
    rememberedLength += query.length;
  }
  return refusal;
}

function textRefusal(query: string): GraphQLError | undefined {
  if (Buffer.byteLength(query) > GRAPHQL_LIMITS.maxDocumentBytes) {
    const message = `The GraphQL document is larger than ${GRAPHQL_LIMITS.maxDocumentBytes / 1024} KiB.`;
    return graphQLErrorOf(new ApiError('PAYLOAD_TOO_LARGE', message), { http: true });
  }
  if (nestingOf(query) > GRAPHQL_LIMITS.maxNesting) {
    return graphQLErrorOf(
      new ApiError('INVALID_REQUEST', `The GraphQL document nests brackets more than ${GRAPHQL_LIMITS.maxNesting} levels deep.`),
    );
  }
  return undefined;
}
