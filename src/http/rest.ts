import { getNullableType, isListType, type GraphQLSchema } from 'graphql';
import type { GraphQLContext } from '../graphql/context';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { ApiError } from '../domain/errors';
import { quoteInput } from '../domain/quote-input';
import type { AppServices } from '../services';
import type { RequestContext } from '../services/request-context';
import { isJsonContentType, notJson, parseJsonBody, readBodyText } from './body';
import { restErrorResponse, toApiError } from './errors';
import { requestContextOf } from './request-context';
import { allowedMethods, argsOfPath, cacheControl, DEFAULT_BODY_LIMIT, matchPath, pathFor, pathParamOf, type RestRoute } from './routes';
import { checkRestInput } from './rest-input';
import { bodyInit, restSuccessParts, withoutNullParams, type ResponseParts } from './rest-response';
import { preflightResponse, SHARED_CORS_HEADERS } from './shared-resource';

export interface RestSurfaceOptions {
  schema: GraphQLSchema;
  services: AppServices;
  log: Logger;
  /** The post-processed OpenAPI document, served at /openapi.json. */
  openapi: () => string;
  /** Paths served by other parts of the app (GraphQL, pages): left alone here. An entry ending in `/` covers every path under it. */
  passThrough: readonly string[];
  /** Spends one request of the caller's rate limit (per key, or per client IP); throws RATE_LIMIT_EXCEEDED. */
  rateLimit(kind: 'public' | 'key', context: RequestContext): Promise<void>;
}

/**
 * The REST edge in front of SOFA: allowlist (404/405), body parsing (413/415/400), authentication
 * of keyed routes and strict input checks, in the contract's order; then the `{"data": ...}`
 * envelope, Cache-Control, and CORS/ETag on shared routes on the way out. SOFA only ever sees
 * requests this plugin let through.
 */
export function useRestSurface(options: RestSurfaceOptions): Plugin {
  const queryFields = options.schema.getQueryType()!.getFields();
  const cacheOf = (route: RestRoute) => cacheControl(route, () => options.services.rates.latestMaxAgeSeconds());

  /** The REST route each request is being served by, for the way out. */
  const routeOf = new WeakMap<RequestContext, RestRoute>();
  /** Requests on a shared (any-origin) path: every answer carries `Access-Control-Allow-Origin: *`. */
  const sharedPath = new WeakSet<RequestContext>();
  /** HEAD requests: served as GET, their answer's body dropped. */
  const headRequests = new WeakSet<RequestContext>();
  /**
   * The list arguments of a request, as checked: SOFA reads a query string value of a list argument
   * as a list of that one string (`symbols=USD,JPY` as ["USD,JPY"]), so its variables take these.
   */
  const listArgs = new WeakMap<RequestContext, Record<string, unknown>>();

  const admit = async (request: Request, url: URL, route: RestRoute, params: Record<string, string>, context: RequestContext) => {
    let body: unknown;
    let text = '';
    if (route.method === 'POST') {
      if (!isJsonContentType(request.headers.get('content-type'))) throw notJson();
      text = await readBodyText(request, route.bodyLimit ?? DEFAULT_BODY_LIMIT);
      body = parseJsonBody(text);
    }
    if (route.access === 'key') await context.authenticate();
    await options.rateLimit(route.access, context);
    if (route.queryHint && url.search !== '') throw new ApiError('INVALID_REQUEST', route.queryHint, { param: url.searchParams.keys().next().value });
    const fieldArgs = queryFields[route.field!]!.args;
    const checkedArgs = checkRestInput(route, fieldArgs, argsOfPath(route, params), url.searchParams, body);
    if (route.method === 'GET') {
      const lists = fieldArgs.filter((arg) => isListType(getNullableType(arg.type)) && checkedArgs[arg.name] != null);
      if (lists.length > 0) listArgs.set(context, Object.fromEntries(lists.map((arg) => [arg.name, checkedArgs[arg.name]])));
    }
    routeOf.set(context, route);
    // SOFA reads the inputs again, its own way (it cuts the query string at a second `?`, decodes
    // path segments again, reads a GET body): hand it exactly what was checked, encoded afresh.
    const checked = new URL(pathFor(route, params), url);
    checked.search = url.searchParams.toString();
    return new Request(checked, { method: route.method, headers: request.headers, ...(route.method === 'POST' ? { body: text } : {}) });
  };

  /** Answers what it can itself (errors, preflight, the OpenAPI document); else admits the request. */
  const dispatch = async (request: Request, url: URL, context: RequestContext): Promise<Response | Request> => {
    // HEAD is a GET whose body is dropped on the way out (RFC 9110 9.3.2): same checks, same limits.
    const head = request.method === 'HEAD';
    if (head) headRequests.add(context);
    const match = matchPath(url.pathname);
    if (!match) throw new ApiError('NOT_FOUND', `There is no route ${quoteInput(url.pathname)}. See GET /openapi.json.`);
    if (match.routes.some((r) => r.shared)) sharedPath.add(context);
    const route = match.routes.find((r) => r.method === (head ? 'GET' : request.method));
    if (!route) {
      if (request.method === 'OPTIONS' && sharedPath.has(context)) return preflightResponse();
      const allow = allowedMethods(match.routes);
      throw new ApiError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${quoteInput(url.pathname)}; use ${allow}.`, { allow: allow.split(', ') });
    }
    if (route.field !== undefined) return admit(request, url, route, match.params, context);
    await options.rateLimit(route.access, context);
    if (url.search !== '') throw new ApiError('INVALID_REQUEST', `${url.pathname} takes no query parameters.`);
    const document = options.openapi();
    return new Response(document, {
      headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': cacheOf(route), 'content-length': String(Buffer.byteLength(document)) },
    });
  };

  return {
    async onRequest({ request, url, endResponse, setRequest, serverContext }) {
      if (options.passThrough.some((p) => p === url.pathname || (p.endsWith('/') && url.pathname.startsWith(p)))) return;
      const context = requestContextOf(serverContext);
      try {
        const next = await dispatch(request, url, context);
        if (next instanceof Response) endResponse(next);
        else setRequest(next);
      } catch (error) {
        if (clientGone(error)) {
          // Its body was cut off (node:http refused the rest and closed it): no fault of the server's, and no one to answer.
          options.log.debug({ err: error, requestId: context.requestId }, 'the client closed its connection before the answer');
          endResponse(restErrorResponse(new ApiError('INVALID_REQUEST', 'The request body was cut off.'), context.requestId));
          return;
        }
        if (!(error instanceof ApiError)) options.log.error({ err: error, requestId: context.requestId }, 'unexpected error');
        const api = toApiError(error);
        context.errorCode = api.code;
        endResponse(restErrorResponse(api, context.requestId));
      }
    },

    onExecute({ args }) {
      const context = (args.contextValue as Partial<GraphQLContext> | undefined)?.requestContext;
      const lists = context && listArgs.get(context);
      if (lists) args.variableValues = { ...args.variableValues, ...lists };
    },

    async onResponse({ request, response, setResponse, serverContext }) {
      const context = requestContextOf(serverContext);
      const route = routeOf.get(context);
      let final = response;
      if (route && response.status === 200) {
        // SOFA answers with the bare field value; the contract wraps it. Text splicing avoids a re-parse.
        final = merged(response, restSuccessParts(route, `{"data":${withoutNullParams(await response.text())}}`, cacheOf(route), request.headers.get('if-none-match')));
      } else if (route) {
        // SOFA's error handler cannot see the request: give its error body this request's id.
        const payload = (await response.json()) as { error?: { code?: string; requestId?: string; param?: string } };
        if (payload.error) payload.error.requestId = context.requestId;
        context.errorCode ??= payload.error?.code;
        // The domain names the GraphQL argument (`id`); REST callers sent the path's `:unit` or `:category`.
        if (payload.error?.param !== undefined) payload.error.param = pathParamOf(route, payload.error.param);
        const body = JSON.stringify(payload);
        final = merged(response, { status: response.status, headers: { 'content-length': String(Buffer.byteLength(body)) }, body });
      }
      final.headers.set('x-request-id', context.requestId);
      if (sharedPath.has(context)) for (const [name, value] of Object.entries(SHARED_CORS_HEADERS)) final.headers.set(name, value);
      // node:http sends no body for HEAD by itself; in-process (yoga.fetch) the body is dropped here.
      if (headRequests.has(context) && final.body !== null) final = new Response(null, { status: final.status, headers: final.headers });
      if (final !== response) setResponse(final);
    },
  };
}

/** A new response with these parts over the old one's headers (the limit headers set before). */
function merged(response: Response, parts: ResponseParts): Response {
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(parts.headers)) headers.set(name, value);
  if (parts.status === 304) headers.delete('content-type');
  return new Response(bodyInit(parts.body), { status: parts.status, headers });
}

/** node:http's error for a request whose connection closed before its body was read. */
function clientGone(error: unknown): boolean {
  return error instanceof Error && ((error as NodeJS.ErrnoException).code === 'ECONNRESET' || error.message === 'aborted');
}
