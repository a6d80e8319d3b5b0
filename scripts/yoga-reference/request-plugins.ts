import { processRegularResult, type GraphQLParams, type Plugin } from 'graphql-yoga';
import { ApiError } from '../../src/domain/errors';
import type { HttpGraphQLContext } from '../../src/http/front/request-context';
import { requestContextOf } from '../../src/http/front/request-context';
import { isJsonContentType, notJson, readBodyText } from '../../src/http/front/body';
import { graphQLErrorOf, toGraphQLError } from '../../src/http/answer/errors';
import { budgetConversions } from '../../src/http/graphql/conversion-budget';
import { documentLimitRefusals, documentTextRefusal } from '../../src/http/graphql/document-limits';
import { registrantOf } from '../../src/http/graphql/graphql-executor';
import { paramsRefusal } from '../../src/http/graphql/graphql-http';
import { persistedParams, type PersistedParams } from '../../src/http/graphql/persisted-params';
import { spendBeforeParse, spendPrice, spendTextPrice } from '../../src/http/graphql/request-rate-limit';
import { documentPrice, textPrice } from '../../src/graphql/price';
import type { RequestSpending } from '../../src/http/limits/request-spending';
import type { PersistedDocuments } from '../../src/services/persisted-documents';

/**
 * The project's steps before execution as Yoga plugins, each calling the function of src/ that the
 * executor calls, at the hook of Yoga's pipeline where GRAPHQL_EXECUTION=yoga ran it (its last
 * commit: 0517d40): the request's rate limit and persisted documents in onParams, the document
 * limits on the text and before validation, the conversion budget at execution, and JSON bodies
 * parsed within the REST routes' limit. Yoga's own steps (its parameter check, parse, operation
 * resolution, validation, execution, masking, result processors) are Yoga's.
 */

/** Spends the request's rate limit before its document is parsed (request-rate-limit.ts); a refusal is the result. */
export function useRequestRateLimit(spending: Pick<RequestSpending, 'spendRequest'>): Plugin {
  return {
    onParams({ context, setResult }) {
      const refused = spendBeforeParse(requestContextOf(context), spending);
      if (refused) {
        return refused.then((error) => {
          if (error) setResult({ errors: [toGraphQLError(error)] });
        });
      }
    },
  };
}

/**
 * The rest of the document's price (price.ts), spent once it has validated and before anything
 * else executes: before the registration of a persisted document, so one that can never run is
 * never registered.
 */
export function usePrice(spending: Pick<RequestSpending, 'spendPrice'>): Plugin<HttpGraphQLContext> {
  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue.requestContext;
      const text = args.document.loc?.source.body ?? '';
      const price = () =>
        Math.max(
          textPrice(text),
          documentPrice(args.schema, args.document, args.operationName ?? undefined, args.variableValues ?? {}).requests,
        );
      const refusal = await spendPrice(context, price, spending);
      if (refusal) setResultAndStopExecution({ errors: [toGraphQLError(refusal)] });
    },
  };
}

/** The price of the document's text (request-rate-limit.ts), once the text is known (after the persisted documents and the text limits) and before it is parsed. */
export function useTextPrice(spending: Pick<RequestSpending, 'spendTextPrice'>): Plugin {
  return {
    onParams({ params, context, setResult }) {
      // The executor checks the parameters first (Yoga after its onParams hooks): parameters it refuses spend no text price.
      if (typeof params.query !== 'string' || paramsRefusal(params)) return;
      const refused = spendTextPrice(requestContextOf(context), params.query, spending);
      if (refused) {
        return refused.then((error) => {
          if (error) setResult({ errors: [toGraphQLError(error)] });
        });
      }
    },
  };
}

/** persistedParams after the rate limit's onParams (a refused request registers nothing) and before the document limits; registration at execution. */
export function usePersistedDocuments(documents: PersistedDocuments): Plugin<HttpGraphQLContext> {
  const pending = new WeakMap<object, { hash: string; document: string }>();
  return {
    onParams({ params, setParams, setResult, context }) {
      const requestContext = requestContextOf(context);
      const apply = (step: PersistedParams) => {
        if (step.params !== params) setParams(step.params);
        if (step.result) setResult(step.result);
        if (step.registration) pending.set(requestContext, step.registration);
      };
      const step = persistedParams(params, !requestContext.rateLimitSpend.paid, documents);
      return step instanceof Promise ? step.then(apply) : apply(step);
    },
    onExecute({ args }) {
      const { requestContext } = args.contextValue;
      const registration = pending.get(requestContext);
      if (registration === undefined) return;
      pending.delete(requestContext);
      return documents.register(registration.hash, registration.document, registrantOf(requestContext));
    },
  };
}

/** The document limits: its text before Yoga's parameter check goes on, its AST before graphql's own rules. */
export function useDocumentLimits(): Plugin {
  return {
    onParams({ params }) {
      if (typeof params.query !== 'string') return;
      const refusal = documentTextRefusal(params.query);
      if (refusal) throw refusal;
    },
    onValidate({ params, setResult }) {
      const errors = documentLimitRefusals(params.documentAST);
      if (errors.length > 0) setResult(errors);
    },
  };
}

/** budgetConversions at execution: a document over the limit is refused whole, else the quota is shared among its fields. */
export function useConversionBudget(): Plugin<HttpGraphQLContext> {
  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const refusal = await budgetConversions(args.document, args.operationName, args.variableValues, args.contextValue.requestContext);
      if (refusal) setResultAndStopExecution(refusal);
    },
  };
}

const refusal = (message: string) => graphQLErrorOf(new ApiError('INVALID_REQUEST', message), { http: true });

/**
 * JSON in and JSON out: a POST's body is JSON (any case of the media type; 415 otherwise), read
 * within `bodyLimit` (413), UTF-8 and an object (400); a GET's unparsable variables or extensions
 * are 400, not an unexpected error; an Accept naming no type Yoga answers gets JSON, not 406.
 */
export function useJsonMediaTypes(options: { bodyLimit: number }): Plugin {
  return {
    onRequestParse({ request, requestParser, setRequestParser }) {
      if (request.method === 'GET' && requestParser !== undefined) {
        setRequestParser(async (req) => {
          try {
            return await requestParser(req);
          } catch (error) {
            if (error instanceof SyntaxError) throw refusal('The variables and extensions parameters must be JSON objects.');
            throw error;
          }
        });
      }
      if (request.method !== 'POST') return;
      if (!isJsonContentType(request.headers.get('content-type'))) throw graphQLErrorOf(notJson(), { http: true });
      setRequestParser((req) => parseJsonBody(req, options.bodyLimit));
    },
    onResultProcess({ resultProcessor, setResultProcessor }) {
      if (resultProcessor === undefined) setResultProcessor(processRegularResult, 'application/json');
    },
  };
}

async function parseJsonBody(request: Request, limit: number): Promise<GraphQLParams> {
  let text: string;
  try {
    text = await readBodyText(request, limit);
  } catch (error) {
    if (error instanceof ApiError) throw graphQLErrorOf(error, { http: true });
    throw refusal('POST body sent invalid JSON.');
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw refusal('POST body sent invalid JSON.');
  }
  if (typeof body !== 'object' || body === null) throw refusal('The POST body must be a JSON object.');
  return body as GraphQLParams;
}
