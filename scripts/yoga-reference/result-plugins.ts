import type { ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { HttpGraphQLContext, HttpRequestContext } from '../../src/http/front/request-context';
import { requestContextOf } from '../../src/http/front/request-context';
import { mergeVary } from '../../src/http/answer/vary';
import { withCostExtensions } from '../../src/http/graphql/cost-extensions';
import { logUnexpectedErrors, withErrorCodes } from '../../src/http/graphql/error-codes';
import { graphQLCacheControl, type CacheFacts } from '../../src/http/graphql/graphql-cache-policy';
import { cacheableAnswer, GRAPHQL_GET_VARY, withoutRequestCounters } from '../../src/http/graphql/graphql-get-cache';
import { GRAPHQL_PATH } from '../../src/http/graphql/graphql-http';
import type { QuotaMeter } from '../../src/services/quota';

/**
 * The project's steps on a result as Yoga plugins, each calling the function of src/ the executor
 * calls: the contract's error codes (unexpected errors logged), then the cost extensions, then a
 * GET's caching fields computed over the finished body.
 */

const single = (result: unknown): result is ExecutionResult => !Array.isArray(result) && !isAsyncIterable(result);

/** withErrorCodes on every single result; an execution's unexpected errors logged with their path. */
export function useErrorCodes(logger: Logger): Plugin<HttpGraphQLContext> {
  return {
    onExecute({ args }) {
      const { requestContext, log } = args.contextValue;
      return {
        onExecuteDone({ result }) {
          if ('errors' in result) logUnexpectedErrors(result.errors, requestContext, log);
        },
      };
    },
    onResultProcess({ result, setResult, serverContext }) {
      if (!single(result)) return;
      const coded = withErrorCodes(result, requestContextOf(serverContext), logger);
      if (coded !== result) setResult(coded);
    },
  };
}

/** withCostExtensions on every single result, errors before execution included; after useErrorCodes. */
export function useCostExtensions(quota: QuotaMeter, clock: () => Date): Plugin {
  return {
    async onResultProcess({ result, setResult, serverContext }) {
      if (!single(result)) return;
      setResult(await withCostExtensions(result, requestContextOf(serverContext), quota, clock));
    },
  };
}

/**
 * A GraphQL GET's Cache-Control from its document (graphQLCacheControl, when it executes); a
 * cacheable result without the request's counters (after useCostExtensions); the strong ETag, Vary
 * and 304 over the finished body (cacheableAnswer); `no-store` with the same Vary otherwise.
 */
export function useGraphQLGetCaching(factsOf: () => Omit<CacheFacts, 'keyed'>): Plugin<HttpGraphQLContext> {
  const policies = new WeakMap<HttpRequestContext, string>();
  return {
    onExecute({ args }) {
      const { request, requestContext } = args.contextValue;
      if (request.method !== 'GET' || !isGraphQLPath(request.url)) return;
      const facts = { ...factsOf(), keyed: request.headers.get('authorization') !== null };
      policies.set(requestContext, graphQLCacheControl(args.document, args.operationName, args.variableValues, facts));
    },
    onResultProcess({ request, result, setResult, serverContext }) {
      if (request.method !== 'GET' || !single(result)) return;
      const context = requestContextOf(serverContext);
      const policy = policies.get(context);
      if (policy === undefined || policy === 'no-store') return;
      if (result.errors?.length) policies.set(context, 'no-store');
      else setResult(withoutRequestCounters(result));
    },
    async onResponse({ request, response, serverContext, setResponse, fetchAPI }) {
      if (request.method !== 'GET' || !isGraphQLJson(request, response)) return;
      const policy = policies.get(requestContextOf(serverContext));
      if (policy === undefined || policy === 'no-store' || response.status !== 200) {
        response.headers.set('cache-control', 'no-store');
        response.headers.set('vary', mergeVary(response.headers.get('vary'), GRAPHQL_GET_VARY));
        return;
      }
      const body = await response.text();
      const answer = cacheableAnswer(body, policy, request.headers.get('if-none-match'), response.headers.get('vary'));
      const headers = new fetchAPI.Headers(response.headers);
      for (const [name, value] of Object.entries(answer.headers)) headers.set(name, value);
      if (answer.status === 304) {
        headers.delete('content-length');
        headers.delete('content-type');
        setResponse(new fetchAPI.Response(null, { status: 304, headers }));
      } else {
        setResponse(new fetchAPI.Response(body, { status: 200, headers }));
      }
    },
  };
}

/** A GraphQL answer in JSON at /graphql (not GraphiQL's page nor its assets). */
function isGraphQLJson(request: Request, response: Response): boolean {
  const type = response.headers.get('content-type') ?? '';
  if (!type.startsWith('application/json') && !type.startsWith('application/graphql-response+json')) return false;
  return isGraphQLPath(request.url);
}

function isGraphQLPath(url: string): boolean {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  return url.startsWith(GRAPHQL_PATH, start) && (url.length === start + GRAPHQL_PATH.length || url[start + GRAPHQL_PATH.length] === '?');
}
