import type { GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { ApiError } from '../domain/errors';
import { quoteInput } from '../domain/quote-input';
import type { AppServices } from '../services';
import { isJsonContentType, parseJsonBody, readBodyText } from './body';
import { restErrorResponse, toApiError } from './errors';
import { requestState } from './request-state';
import { allowedMethods, argsOfPath, cacheControl, DEFAULT_BODY_LIMIT, matchPath, pathFor, pathParamOf, type RestRoute } from './routes';
import { checkRestInput } from './rest-input';
import { etagMatches, preflightResponse, SHARED_CORS_HEADERS, strongEtag } from './shared-resource';

export interface RestSurfaceOptions {
  schema: GraphQLSchema;
  services: AppServices;
  log: Logger;
  /** The post-processed OpenAPI document, served at /openapi.json. */
  openapi: () => string;
  /** Paths served by other parts of the app (GraphQL, pages): left alone here. */
  passThrough: readonly string[];
  /** Spends one request of the caller's rate limit (per key, or per client IP); throws RATE_LIMIT_EXCEEDED. */
  rateLimit(kind: 'public' | 'key', serverContext: object, request: Request): Promise<unknown>;
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

  const admit = async (request: Request, url: URL, route: RestRoute, params: Record<string, string>, serverContext: object) => {
    const state = requestState(serverContext);
    let body: unknown;
    let text = '';
    if (route.method === 'POST') {
      if (!isJsonContentType(request.headers.get('content-type'))) {
        throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.');
      }
      text = await readBodyText(request, route.bodyLimit ?? DEFAULT_BODY_LIMIT);
      body = parseJsonBody(text);
    }
    if (route.access === 'key') {
      state.principal = await options.services.authenticate(request.headers.get('authorization'));
    }
    await options.rateLimit(route.access, serverContext, request);
    if (route.queryHint && url.search !== '') throw new ApiError('INVALID_REQUEST', route.queryHint, { param: url.searchParams.keys().next().value });
    checkRestInput(route, queryFields[route.field!]!.args, argsOfPath(route, params), url.searchParams, body);
    state.route = route;
    // SOFA reads the inputs again, its own way (it cuts the query string at a second `?`, decodes
    // path segments again, reads a GET body): hand it exactly what was checked, encoded afresh.
    const checked = new URL(pathFor(route, params), url);
    checked.search = url.searchParams.toString();
    return new Request(checked, { method: route.method, headers: request.headers, ...(route.method === 'POST' ? { body: text } : {}) });
  };

  /** Answers what it can itself (errors, preflight, the OpenAPI document); else admits the request. */
  const dispatch = async (request: Request, url: URL, serverContext: object): Promise<Response | Request> => {
    const state = requestState(serverContext);
    // HEAD is a GET whose body is dropped on the way out (RFC 9110 9.3.2): same checks, same limits.
    state.head = request.method === 'HEAD';
    const match = matchPath(url.pathname);
    if (!match) throw new ApiError('NOT_FOUND', `There is no route ${quoteInput(url.pathname)}. See GET /openapi.json.`);
    state.shared = match.routes.some((r) => r.shared);
    const route = match.routes.find((r) => r.method === (state.head ? 'GET' : request.method));
    if (!route) {
      if (request.method === 'OPTIONS' && state.shared) return preflightResponse();
      const allow = allowedMethods(match.routes);
      throw new ApiError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${quoteInput(url.pathname)}; use ${allow}.`, { headers: { Allow: allow } });
    }
    if (route.field !== undefined) return admit(request, url, route, match.params, serverContext);
    await options.rateLimit(route.access, serverContext, request);
    if (url.search !== '') throw new ApiError('INVALID_REQUEST', `${url.pathname} takes no query parameters.`);
    return new Response(options.openapi(), { headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': cacheOf(route) } });
  };

  return {
    async onRequest({ request, url, endResponse, setRequest, serverContext }) {
      if (options.passThrough.includes(url.pathname)) return;
      const state = requestState(serverContext);
      try {
        const next = await dispatch(request, url, serverContext);
        if (next instanceof Response) endResponse(next);
        else setRequest(next);
      } catch (error) {
        if (!(error instanceof ApiError)) options.log.error({ err: error, requestId: state.requestId }, 'unexpected error');
        endResponse(restErrorResponse(toApiError(error), state.requestId));
      }
    },

    async onResponse({ request, response, setResponse, serverContext }) {
      const state = requestState(serverContext);
      let final = response;
      if (state.route && response.status === 200) {
        // SOFA answers with the bare field value; the contract wraps it. Text splicing avoids a re-parse.
        final = withBody(response, `{"data":${await response.text()}}`, cacheOf(state.route));
        if (state.route.shared) final = await conditional(request, final);
      } else if (state.route) {
        // SOFA's error handler cannot see the request: give its error body this request's id.
        const payload = (await response.json()) as { error?: { requestId?: string; param?: string } };
        if (payload.error) payload.error.requestId = state.requestId;
        // The domain names the GraphQL argument (`id`); REST callers sent the path's `:unit` or `:category`.
        if (payload.error?.param !== undefined) payload.error.param = pathParamOf(state.route, payload.error.param);
        final = withBody(response, JSON.stringify(payload), 'no-store');
      }
      final.headers.set('x-request-id', state.requestId);
      if (state.shared) for (const [name, value] of Object.entries(SHARED_CORS_HEADERS)) final.headers.set(name, value);
      // node:http sends no body for HEAD by itself; in-process (yoga.fetch) the body is dropped here.
      if (state.head && final.body !== null) final = new Response(null, { status: final.status, headers: final.headers });
      if (final !== response) setResponse(final);
    },
  };
}

function withBody(response: Response, body: string, cache: string): Response {
  const headers = new Headers(response.headers);
  headers.set('cache-control', cache);
  headers.set('content-type', 'application/json; charset=utf-8');
  headers.set('content-length', String(Buffer.byteLength(body)));
  return new Response(body, { status: response.status, headers });
}

/** A strong ETag on the exact bytes, and 304 Not Modified when the client already has them. */
async function conditional(request: Request, response: Response): Promise<Response> {
  const body = await response.clone().text();
  const etag = strongEtag(body);
  response.headers.set('etag', etag);
  if (!etagMatches(request.headers.get('if-none-match'), etag)) return response;
  const headers = new Headers(response.headers);
  headers.delete('content-type');
  return new Response(null, { status: 304, headers });
}
