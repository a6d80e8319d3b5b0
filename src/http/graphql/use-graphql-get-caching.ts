import type { Plugin } from 'graphql-yoga';
import { isAsyncIterable } from 'graphql-yoga';
import type { ExecutionResult } from 'graphql';
import type { GraphQLContext } from '../../graphql/context';
import type { RequestContext } from '../../services/request-context';
import { graphQLCacheControl, type CacheFacts } from './graphql-cache-policy';
import { cacheableAnswer, GRAPHQL_GET_VARY, withoutRequestCounters } from './graphql-get-cache';
import { mergeVary } from '../answer/vary';
import { GRAPHQL_PATH, graphQLAnswer, type GraphQLMediaType } from './graphql-http';
import type { ResponseParts } from '../answer/answer-parts';
import { requestContextOf } from '../front/request-context';

/**
 * A GraphQL GET's answer (graphQLAnswer) under its document's Cache-Control (graphQLCacheControl, or
 * undefined when the request executed nothing): a cacheable answer leaves the request's counters out
 * of its body and gets a strong ETag, Vary, and 304 on If-None-Match; every other answer (errors,
 * conversions, a key's account) is `no-store`, with the same Vary.
 */
export function graphQLGetAnswer(result: ExecutionResult, mediaType: GraphQLMediaType, cacheControl: string | undefined, ifNoneMatch: string | null): ResponseParts {
  const cacheable = cacheControl !== undefined && cacheControl !== 'no-store' && !result.errors?.length;
  const parts = graphQLAnswer(cacheable ? withoutRequestCounters(result) : result, mediaType);
  if (!cacheable || parts.status !== 200) {
    return { ...parts, headers: { ...parts.headers, 'cache-control': 'no-store', vary: mergeVary(parts.headers['vary'] ?? null, GRAPHQL_GET_VARY) } };
  }
  const answer = cacheableAnswer(parts.body ?? '', cacheControl, ifNoneMatch, parts.headers['vary'] ?? null);
  const headers = { ...parts.headers, ...answer.headers };
  if (answer.status === 200) return { status: 200, headers, body: parts.body };
  // Not Modified: the validator and caching fields, and no body.
  return { status: 304, headers: { ...headers, 'content-length': '0' }, body: '' };
}

/**
 * Cacheable GraphQL GETs (`GET /graphql?query=…`, or a persisted document's hash): the answer's
 * Cache-Control from the fields its document selects (graphql-cache-policy.ts), and for a cacheable
 * answer a strong ETag, Vary, and 304 on If-None-Match. Every other GraphQL GET answer (errors,
 * conversions, a key's account) is `no-store`. POST answers are left as they are.
 *
 * The policy is worked out when the document executes (after parsing, validation and the limits),
 * the request's counters are left out of a cacheable body as Yoga writes it (after useCostExtensions),
 * and the validator is computed over the finished body (after useSecurityHeaders, before the log).
 * Yoga's pipeline (GRAPHQL_EXECUTION=yoga); the executor's answers take graphQLGetAnswer.
 */
export function useGraphQLGetCaching(factsOf: (request: Request) => Omit<CacheFacts, 'keyed'>): Plugin<GraphQLContext> {
  const policies = new WeakMap<RequestContext, string>();
  return {
    onExecute({ args }) {
      const { request, requestContext } = args.contextValue;
      if (request.method !== 'GET' || !isGraphQLPath(request.url)) return;
      const facts = { ...factsOf(request), keyed: request.headers.get('authorization') !== null };
      policies.set(requestContext, graphQLCacheControl(args.document, args.operationName, args.variableValues, facts));
    },
    onResultProcess({ request, result, setResult, serverContext }) {
      if (request.method !== 'GET' || Array.isArray(result) || isAsyncIterable(result)) return;
      const context = requestContextOf(serverContext);
      const policy = policies.get(context);
      if (policy === undefined || policy === 'no-store') return;
      if ((result as ExecutionResult).errors?.length) policies.set(context, 'no-store');
      else setResult(withoutRequestCounters(result as ExecutionResult));
    },
    async onResponse({ request, response, serverContext, setResponse, fetchAPI }) {
      if (request.method !== 'GET' || !isGraphQLJson(request, response)) return;
      const policy = (serverContext as { requestContext?: RequestContext }).requestContext && policies.get(requestContextOf(serverContext));
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

/** The URL's path is /graphql (REST routes executed through Yoga are not GraphQL requests). */
function isGraphQLPath(url: string): boolean {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  return url.startsWith(GRAPHQL_PATH, start) && (url.length === start + GRAPHQL_PATH.length || url[start + GRAPHQL_PATH.length] === '?');
}
