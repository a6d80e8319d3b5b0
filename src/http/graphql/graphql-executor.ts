import { getOperationAST, GraphQLError, subscribe, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { GraphQLParams } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { ApiError } from '../../domain/errors';
import type { GraphQLContext } from '../../graphql/context';
import { DOCUMENT_CACHE_BYTES } from '../../graphql/document-cache';
import { KnownPrices } from '../../graphql/known-prices';
import { documentPrice, textPrice } from '../../graphql/price';
import { PreparedDocuments } from '../../graphql/prepared-documents';
import type { AppServices } from '../../services';
import type { PersistedDocuments } from '../../services/persisted-documents';
import type { HttpRequestContext } from '../front/request-context';
import { toGraphQLError } from '../answer/errors';
import { graphQLCacheControl, type CacheFacts } from './graphql-cache-policy';
import { budgetConversions } from './conversion-budget';
import { withCostExtensions } from './cost-extensions';
import { logUnexpectedErrors, withErrorCodes } from './error-codes';
import { documentLimitRefusals, documentTextRefusal } from './document-limits';
import { paramsRefusal } from './graphql-http';
import { persistedParams } from './persisted-params';

/**
 * One GraphQL request to execute: its parameters as sent (checked here: paramsRefusal), its method,
 * and its context; or the refusal of a request whose parameters could not be read
 * (graphQLRequestParams), answered with its codes and cost and nothing run.
 */
export interface GraphQLRun {
  params: GraphQLParams;
  method: 'GET' | 'POST';
  context: HttpRequestContext;
  refusal?: GraphQLError;
}

/** A request's result, coded and costed, for a GET that executed its Cache-Control (graphql-cache-policy.ts), and whether its operation was subscribed to. */
export interface GraphQLOutcome {
  result: ExecutionResult;
  cacheControl: string | undefined;
  /** A subscription was refused by graphql-js's subscribe (the schema has none): its answer is never multipart (answerMediaType). */
  subscription: boolean;
}

export interface GraphQLExecutorOptions {
  /** The schema with its fields' rate limits. */
  schema: GraphQLSchema;
  services: AppServices;
  log: Logger;
  clock: () => Date;
  /**
   * The request's rate-limit spend before its document is parsed (request-rate-limit.ts):
   * undefined when it was made already, else settling to the refusal the request is answered with,
   * or undefined.
   */
  spendBeforeParse: (context: HttpRequestContext) => Promise<ApiError | undefined> | undefined;
  /** The price of the document's text (price.ts: textPrice), spent once the text is known and before it is parsed: undefined, or settling to the refusal or undefined. */
  spendTextPrice: (context: HttpRequestContext, text: string) => Promise<ApiError | undefined> | undefined;
  /** The rest of the document's price, spent before it executes (request-rate-limit.ts): undefined, or settling to the refusal or undefined. */
  spendPrice: (context: HttpRequestContext, price: () => number) => Promise<ApiError | undefined> | undefined;
  documents: PersistedDocuments;
  /** The facts a GET's Cache-Control depends on besides its document. */
  cacheFacts: () => Omit<CacheFacts, 'keyed'>;
}

export type GraphQLExecutor = (run: GraphQLRun) => Promise<GraphQLOutcome>;

/**
 * The executor of every GraphQL request (and of the MCP tools' documents): its steps as plain
 * functions in their order, around a document cache and a compiled execution
 * (prepared-documents.ts). In order: the request's rate limit spent before anything is parsed
 * (request-rate-limit), persisted documents (persisted-params), the document's text limits, the
 * parameters' check (paramsRefusal), the text's price (spendTextPrice, by its length), parse (the
 * operation must resolve; no mutation by GET), the document limits then validation, the rest of the document's price (spendPrice; before parsing,
 * for a text priced before: known-prices.ts), the GET's cache policy, the registration of a persisted
 * document, the conversion budget (conversion-budget), execution with unexpected errors logged
 * then masked; then the contract's error codes (error-codes) and the cost extensions
 * (cost-extensions), which a refusal gets too. Errors carry the GraphQL over HTTP statuses
 * (`extensions.http`) from which graphQLAnswer and streamedAnswer write the answer.
 */
export function createGraphQLExecutor(options: GraphQLExecutorOptions): GraphQLExecutor {
  const prepared = new PreparedDocuments(options.schema, DOCUMENT_CACHE_BYTES);
  const prices = new KnownPrices();
  const { services, log } = options;

  const resultOf = async (run: GraphQLRun, outcome: Omit<GraphQLOutcome, 'result'>): Promise<ExecutionResult> => {
    const { context } = run;
    const spent = options.spendBeforeParse(context);
    const refused = spent && (await spent);
    const refusal: ExecutionResult | undefined = refused ? { errors: [toGraphQLError(refused)] } : undefined;
    const persisted = await persistedParams(run.params, refusal !== undefined, options.documents);
    const params = persisted.params;
    const textRefusal = typeof params.query === 'string' ? documentTextRefusal(params.query) : undefined;
    if (textRefusal) return { errors: [toGraphQLError(textRefusal)] };
    const paramsError = paramsRefusal(params);
    if (paramsError) return { errors: [toGraphQLError(paramsError)] };
    const query = params.query as string;
    const ended = persisted.result ?? refusal;
    if (ended) return ended;
    const textPriceRefusal = await refusalOf(options.spendTextPrice(context, query));
    if (textPriceRefusal) return textPriceRefusal;
    // A text priced before spends its price now, before it is parsed again.
    const knownPrice = prices.get(query, params.operationName);
    const knownRefusal = knownPrice === undefined ? undefined : await refusalOf(options.spendPrice(context, () => knownPrice));
    if (knownRefusal) return knownRefusal;
    let document: ReturnType<PreparedDocuments['parse']>;
    try {
      document = prepared.parse(query);
    } catch (error) {
      if (error instanceof GraphQLError) markParseError(error);
      return { errors: [toGraphQLError(error)] };
    }
    const unresolved = resolvedOperationError(document.document, params.operationName, run.method);
    if (unresolved) return { errors: [toGraphQLError(unresolved)] };
    const validationErrors = prepared.validate(document, documentLimitRefusals, markValidationError);
    if (validationErrors.length > 0) return { errors: validationErrors };
    if (getOperationAST(document.document, params.operationName)?.operation === 'subscription') {
      outcome.subscription = true;
      return subscriptionRefusal(options.schema, document.document, params);
    }
    const variables = params.variables;
    const priceRefusal = await refusalOf(
      options.spendPrice(context, () => {
        const price = documentPrice(options.schema, document.document, params.operationName, variables);
        const requests = Math.max(textPrice(query), price.requests);
        if (!price.readsVariables) prices.remember(query, params.operationName, requests);
        return requests;
      }),
    );
    if (priceRefusal) return priceRefusal;
    if (run.method === 'GET') {
      const facts = { ...options.cacheFacts(), keyed: context.carriesKey };
      outcome.cacheControl = graphQLCacheControl(document.document, params.operationName, variables, facts);
    }
    if (persisted.registration)
      await options.documents.register(persisted.registration.hash, persisted.registration.document, registrantOf(context));
    const budgetRefusal = await budgetConversions(document.document, params.operationName, variables, context);
    if (budgetRefusal) return budgetRefusal;
    const contextValue: GraphQLContext = { requestContext: context, services, log };
    const result = await prepared.execute(document, { contextValue, variableValues: variables, operationName: params.operationName });
    logUnexpectedErrors(result.errors, context, log);
    return masked(result, document.document);
  };

  return async (run) => {
    const outcome: Omit<GraphQLOutcome, 'result'> = { cacheControl: undefined, subscription: false };
    let result: ExecutionResult;
    try {
      result = run.refusal ? { errors: [toGraphQLError(run.refusal)] } : await resultOf(run, outcome);
    } catch (error) {
      // Logged once, with the request id and this cause, by withErrorCodes (a request-level INTERNAL error).
      result = { errors: [toGraphQLError(error)] };
    }
    const answered = await withCostExtensions(withErrorCodes(result, run.context, log), run.context, services.quota, options.clock);
    return { result: answered, ...outcome };
  };
}

/** The result of a spend's refusal, or undefined (no promise made when there was none to wait for). */
async function refusalOf(spend: Promise<ApiError | undefined> | undefined): Promise<ExecutionResult | undefined> {
  const refused = spend && (await spend);
  return refused ? { errors: [toGraphQLError(refused)] } : undefined;
}

/** The schema has no subscription type: graphql-js refuses the operation, before any hook of execution. */
async function subscriptionRefusal(schema: GraphQLSchema, document: DocumentNode, params: GraphQLParams): Promise<ExecutionResult> {
  const refused = await subscribe({ schema, document, variableValues: params.variables, operationName: params.operationName });
  if (Symbol.asyncIterator in refused) throw new TypeError('A subscription was started on a schema without a subscription type.');
  return { errors: (refused.errors ?? []).map((error) => toGraphQLError(error)) };
}

/**
 * An execution's result with its errors masked (toGraphQLError, Yoga's maskError here), written as
 * graphql-js writes a result: `errors` before `data`. graphql-jit's errors carry their locations
 * (line and column) without the nodes they were computed from: they are given the document's
 * source and positions again, from which the answer writes the same locations.
 */
function masked(result: ExecutionResult, document: DocumentNode): ExecutionResult {
  if (!result.errors) return result;
  const executed = 'data' in result;
  const errors = result.errors.map((error) => {
    const coded = toGraphQLError(error.nodes === undefined && error.locations?.length ? located(error, document) : error);
    // Nothing executed (the variables or the operation were refused): 400 under either media type, as Yoga's executor marks it.
    if (!executed) coded.extensions['http'] = { ...(coded.extensions['http'] as object | undefined), status: 400 };
    return coded;
  });
  const { data, extensions } = result;
  return { errors, ...(executed ? { data } : {}), ...(extensions === undefined ? {} : { extensions }) };
}

function located(error: GraphQLError, document: DocumentNode): GraphQLError {
  const source = document.loc?.source;
  if (source === undefined) return error;
  const lineStarts = [0];
  for (const match of source.body.matchAll(/\r\n|[\n\r]/g)) lineStarts.push(match.index + match[0].length);
  const positions = error.locations!.map(({ line, column }) => (lineStarts[line - 1] ?? 0) + column - 1);
  return new GraphQLError(error.message, {
    source,
    positions,
    path: error.path,
    originalError: error.originalError,
    extensions: error.extensions,
  });
}

/**
 * The operation the request runs must resolve from the document and `operationName`, and may be a
 * mutation only by POST: Yoga's rule, with its errors and HTTP statuses (400; 405 with Allow: POST). The error, or undefined.
 */
function resolvedOperationError(
  document: DocumentNode,
  operationName: string | null | undefined,
  method: 'GET' | 'POST',
): GraphQLError | undefined {
  const operation = getOperationAST(document, operationName);
  if (!operation) {
    return new GraphQLError('Could not determine what operation to execute.', {
      extensions: { code: 'OPERATION_RESOLUTION_FAILURE', http: { status: 400 } },
    });
  }
  if (operation.operation === 'mutation' && method === 'GET') {
    return new GraphQLError('Can only perform a mutation operation from a POST request.', {
      extensions: { http: { status: 405, headers: { Allow: 'POST' } }, code: 'BAD_REQUEST' },
    });
  }
  return undefined;
}

type HttpExtension = { spec?: boolean; status?: number };

/** A syntax error answers 400 under application/graphql-response+json and 200 under application/json (Yoga's marks, kept on the cached error). */
function markParseError(error: GraphQLError): void {
  const extensions = error.extensions as Record<string, unknown>;
  extensions['code'] ||= 'GRAPHQL_PARSE_FAILED';
  const http = (extensions['http'] ||= {}) as HttpExtension;
  http.spec ||= true;
  http.status ||= 400;
}

/** A validation error answers 400 under application/graphql-response+json and 200 under application/json (Yoga's marks). */
function markValidationError(error: GraphQLError): void {
  const extensions = error.extensions as Record<string, unknown>;
  extensions['code'] ||= 'GRAPHQL_VALIDATION_FAILED';
  const http = (extensions['http'] ||= {}) as HttpExtension;
  http.spec = http.spec == null ? true : http.spec;
  http.status ||= 400;
}

/** Who a registration is counted against: the bucket the request spent its rate limit from (its key's, or its client IP's). */
export function registrantOf(context: HttpRequestContext): string {
  const spend = context.rateLimitSpend;
  return spend.kind === 'key' && spend.bucket !== undefined ? `key:${spend.bucket}` : `ip:${context.clientBucket}`;
}
