import { GraphQLError, type DocumentNode, type ExecutionResult } from 'graphql';
import { ERROR_STATUS } from '../../domain/errors';
import { MAX_CONVERSIONS_PER_DOCUMENT, plannedConversions, totalConversions } from '../../graphql/cost';
import type { RequestContext } from '../../services/request-context';

/**
 * Bounds a document's work before any is done (contract section 10), for GraphQL (the executor) and REST
 * (its batch route, executed directly or by SOFA): over MAX_CONVERSIONS_PER_DOCUMENT conversions the document
 * is refused whole (its result, returned); otherwise the remaining quota is shared among its
 * conversion fields in document order, and those past it are refused without being computed.
 */
export async function budgetConversions(
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Readonly<Record<string, unknown>> | null | undefined,
  context: RequestContext,
): Promise<ExecutionResult | undefined> {
  const plan = plannedConversions(document, operationName, variables);
  const total = totalConversions(plan);
  // One field is bounded by its own rules (a batch holds at most 1,000 items), which say more
  // precisely what is wrong; the document limit is for fields added together.
  if (plan.length > 1 && total > MAX_CONVERSIONS_PER_DOCUMENT) {
    // Reported in the answer's cost extensions, as a planned document's total is.
    context.requestedConversions = total;
    const message = `The document asks for ${total.toLocaleString('en-US')} conversions (conversion fields plus batch items); at most ${MAX_CONVERSIONS_PER_DOCUMENT.toLocaleString('en-US')} are allowed in one document.`;
    return {
      errors: [
        new GraphQLError(message, {
          extensions: {
            code: 'INVALID_REQUEST',
            status: ERROR_STATUS.INVALID_REQUEST,
            http: { status: ERROR_STATUS.INVALID_REQUEST, spec: true },
          },
        }),
      ],
    };
  }
  await context.planConversions(plan);
  return undefined;
}
