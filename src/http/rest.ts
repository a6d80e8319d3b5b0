import { getNullableType, isListType } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GraphQLContext } from '../graphql/context';
import type { Logger } from 'pino';
import { ApiError } from '../domain/errors';
import { quoteInput } from '../domain/quote-input';
import type { RequestContext } from '../services/request-context';
import { readBodyText } from './body';
import { admitCaller, checkedArgs, failedAnswer, readRouteBody, stampAnswer, type Endpoint, type Endpoints } from './endpoint';
import { restErrorResponse } from './errors';
import { requestContextOf } from './request-context';
import { negotiatedParts, negotiates } from './answer-formats';
import { allowedMethods, pathFor, pathParamOf } from './routes';
import { bodyInit, restSuccessParts, toResponse, withoutNullParams, type ResponseParts } from './rest-response';
import { preflightResponse, SHARED_CORS_HEADERS } from './shared-resource';

export interface RestSurfaceOptions {
  /** The route table compiled once (shared with the fast lane). */
  endpoints: Endpoints;
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
  /** What the way out needs of each request the edge saw. */
  const passages = new WeakMap<RequestContext, Passage>();

  const admit = async (request: Request, url: URL, endpoint: Endpoint, params: Record<string, string>, passage: Passage, context: RequestContext) => {
    const route = endpoint.route;
    const body = await readRouteBody(route, request.headers.get('content-type'), (limit) => readBodyText(request, limit));
    await admitCaller(route, context, options.rateLimit);
    const args = checkedArgs(endpoint, params, url.searchParams, url.search !== '', body?.value);
    passage.endpoint = endpoint;
    // SOFA would read a comma list as a list of one string: execution gets the list checked here.
    const lists = route.method === 'GET' ? endpoint.field!.args.filter((arg) => isListType(getNullableType(arg.type)) && args[arg.name] != null) : [];
    if (lists.length > 0) passage.lists = Object.fromEntries(lists.map((arg) => [arg.name, args[arg.name]]));
    // SOFA reads the inputs again, its own way (it cuts the query string at a second `?`, decodes
    // path segments again, reads a GET body): hand it exactly what was checked, encoded afresh.
    const checked = new URL(pathFor(route, params), url);
    checked.search = url.searchParams.toString();
    return new Request(checked, { method: route.method, headers: request.headers, ...(body === undefined ? {} : { body: body.text }) });
  };

  /** Answers what it can itself (errors, preflight, the OpenAPI document); else admits the request. */
  const dispatch = async (request: Request, url: URL, context: RequestContext): Promise<Response | Request> => {
    // HEAD is a GET whose body is dropped on the way out (RFC 9110 9.3.2): same checks, same limits.
    const passage: Passage = { head: request.method === 'HEAD', cors: undefined, endpoint: undefined };
    passages.set(context, passage);
    const found = options.endpoints.find(url.pathname, request.method);
    if (!found) throw new ApiError('NOT_FOUND', `There is no route ${quoteInput(url.pathname)}. See GET /openapi.json.`);
    const { match, endpoint } = found;
    if (match.routes.some((r) => r.shared)) passage.cors = SHARED_CORS_HEADERS;
    if (!endpoint) {
      if (request.method === 'OPTIONS' && passage.cors) return preflightResponse();
      const allow = allowedMethods(match.routes);
      throw new ApiError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${quoteInput(url.pathname)}; use ${allow}.`, { allow: allow.split(', ') });
    }
    if (endpoint.route.field !== undefined) return admit(request, url, endpoint, match.params, passage, context);
    await admitCaller(endpoint.route, context, options.rateLimit);
    if (url.search !== '') throw new ApiError('INVALID_REQUEST', `${url.pathname} takes no query parameters.`);
    const document = options.openapi();
    return new Response(document, {
      headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': endpoint.cacheControl(), 'content-length': String(Buffer.byteLength(document)) },
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
        endResponse(toResponse(failedAnswer(error, undefined, context, options.log)));
      }
    },

    onExecute({ args, executeFn, setExecuteFn }) {
      const lists = passages.get((args.contextValue as unknown as GraphQLContext).requestContext)?.lists;
      if (lists) setExecuteFn((given) => executeFn({ ...given, variableValues: { ...given.variableValues, ...lists } }));
    },

    async onResponse({ request, response, setResponse, serverContext }) {
      const context = requestContextOf(serverContext);
      const passage = passages.get(context);
      let final = passage?.endpoint ? await sofaAnswer(response, passage.endpoint, request, context) : response;
      stampAnswer((name, value) => final.headers.set(name, value), passage?.cors, context.requestId);
      // node:http sends no body for HEAD by itself; in-process (yoga.fetch) the body is dropped here.
      if (passage?.head && final.body !== null) final = new Response(null, { status: final.status, headers: final.headers });
      if (final !== response) setResponse(final);
    },
  };
}

/** What the way out needs of a request the edge saw. */
interface Passage {
  /** HEAD: served as GET, its answer's body dropped. */
  head: boolean;
  /** On a shared (any-origin) path, the CORS fields every answer carries, whatever its status. */
  cors: Readonly<Record<string, string>> | undefined;
  /** The endpoint SOFA serves it by, once the edge let it through. */
  endpoint: Endpoint | undefined;
  /** Its list arguments as checked (from comma lists), which SOFA's execution takes instead of its own reading. */
  lists?: Record<string, unknown>;
}

/**
 * SOFA's answer in the contract's terms: a success is the bare field value, which the contract wraps
 * in `{"data": ...}` (text splicing avoids a re-parse) with the route's Cache-Control and ETag; an
 * error is given this request's id (SOFA's error handler cannot see the request) and the REST
 * caller's parameter names.
 */
async function sofaAnswer(response: Response, endpoint: Endpoint, request: Request, context: RequestContext): Promise<Response> {
  if (response.status === 200) {
    // SOFA answers with the bare field value; the contract wraps it. Text splicing avoids a re-parse.
    const json = `{"data":${withoutNullParams(await response.text())}}`;
    const ifNoneMatch = request.headers.get('if-none-match');
    if (negotiates(endpoint.route)) return merged(response, negotiatedParts(endpoint.route, json, { accept: request.headers.get('accept'), ifNoneMatch, query: new URL(request.url).search.slice(1) }));
    return merged(response, restSuccessParts(endpoint, json, ifNoneMatch));
  }
  const payload = (await response.json()) as { error?: { code?: string; requestId?: string; param?: string } };
  if (payload.error) payload.error.requestId = context.requestId;
  context.errorCode ??= payload.error?.code;
  if (payload.error?.param !== undefined) payload.error.param = pathParamOf(endpoint.route, payload.error.param);
  const body = JSON.stringify(payload);
  return merged(response, { status: response.status, headers: { 'content-length': String(Buffer.byteLength(body)) }, body });
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
