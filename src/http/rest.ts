import type { GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { ApiError } from '../domain/errors';
import type { AppServices } from '../services';
import { isJsonContentType, parseJsonBody, readBodyText } from './body';
import { restErrorResponse, toApiError } from './errors';
import { requestState } from './request-state';
import { CACHE_CONTROL, DEFAULT_BODY_LIMIT, matchPath, type RestRoute } from './routes';
import { checkRestInput } from './rest-input';

export interface RestSurfaceOptions {
  schema: GraphQLSchema;
  services: AppServices;
  /** The post-processed OpenAPI document, served at /openapi.json. */
  openapi: () => string;
  log: Logger;
  /** Paths served by other parts of the app (GraphQL, pages): left alone here. */
  passThrough: readonly string[];
}

/**
 * The REST edge in front of SOFA: allowlist (404/405), body parsing (413/415/400), authentication
 * of keyed routes and strict input checks, in the contract's order; then the `{"data": ...}`
 * envelope and Cache-Control on the way out. SOFA only ever sees requests this plugin let through.
 */
export function useRestSurface(options: RestSurfaceOptions): Plugin {
  const queryFields = options.schema.getQueryType()!.getFields();

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
    checkRestInput(route, queryFields[route.field!]!.args, params, url.searchParams, body);
    state.route = route;
    return route.method === 'POST' ? new Request(request.url, { method: 'POST', headers: request.headers, body: text }) : request;
  };

  return {
    async onRequest({ request, url, endResponse, setRequest, serverContext }) {
      const state = requestState(serverContext);
      if (options.passThrough.includes(url.pathname)) return;
      try {
        const match = matchPath(url.pathname);
        if (!match) throw new ApiError('NOT_FOUND', `There is no route ${url.pathname}. See GET /openapi.json.`);
        const route = match.routes.find((r) => r.method === request.method);
        if (!route) {
          const allow = match.routes.map((r) => r.method).join(', ');
          throw new ApiError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${url.pathname}; use ${allow}.`, { headers: { Allow: allow } });
        }
        if (route.field === undefined) {
          if (url.search !== '') throw new ApiError('INVALID_REQUEST', `${url.pathname} takes no query parameters.`);
          endResponse(new Response(options.openapi(), { headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': CACHE_CONTROL[route.cache] } }));
          return;
        }
        setRequest(await admit(request, url, route, match.params, serverContext));
      } catch (error) {
        if (!(error instanceof ApiError)) options.log.error({ err: error, requestId: state.requestId }, 'unexpected error');
        endResponse(restErrorResponse(toApiError(error), state.requestId));
      }
    },

    async onResponse({ response, setResponse, serverContext }) {
      const state = requestState(serverContext);
      response.headers.set('x-request-id', state.requestId);
      const route = state.route;
      if (!route) return;
      if (response.status === 200) {
        // SOFA answers with the bare field value; the contract wraps it. Text splicing avoids a re-parse.
        const text = await response.text();
        const headers = new Headers(response.headers);
        headers.set('cache-control', CACHE_CONTROL[route.cache]);
        headers.set('content-type', 'application/json; charset=utf-8');
        headers.delete('content-length');
        setResponse(new Response(`{"data":${text}}`, { status: 200, headers }));
      } else {
        // SOFA's error handler cannot see the request: give its error body this request's id.
        const payload = (await response.json()) as { error?: { requestId?: string } };
        if (payload.error) payload.error.requestId = state.requestId;
        const headers = new Headers(response.headers);
        headers.set('cache-control', 'no-store');
        headers.delete('content-length');
        setResponse(new Response(JSON.stringify(payload), { status: response.status, headers }));
      }
    },
  };
}
