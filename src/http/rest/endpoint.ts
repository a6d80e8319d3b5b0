import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GraphQLField, GraphQLFieldMap, GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import { ApiError } from '../../domain/errors';
import type { GraphQLContext } from '../../graphql/context';
import { isJsonContentType, notJson, parseJsonBody } from '../front/body';
import { failureOf, restErrorParts } from '../answer/errors';
import { checkRestInput, type QueryParams } from './rest-input';
import type { ResponseParts } from '../answer/answer-parts';
import {
  argsOfPath,
  cacheControl,
  DEFAULT_BODY_LIMIT,
  matchPath,
  pathParamOf,
  ROUTES,
  openApiPath,
  type RestRoute,
  type RouteMatch,
} from '../routes';
import { SHARED_CORS_HEADERS } from '../answer/shared-resource';
import type { RequestSpending } from '../limits/request-spending';
import type { HttpRequestContext } from '../front/request-context';

/**
 * A row of the route table compiled once: what every request on the route needs, prepared before
 * the first one, and the steps the edge (edge.ts) takes for it in the contract's order (body, key,
 * rate limit, inputs) before the field is executed, by its resolver or by SOFA.
 */
export interface Endpoint {
  readonly route: RestRoute;
  /** The Query field that answers it; undefined for a route served outside GraphQL (the OpenAPI document). */
  readonly field: GraphQLField<unknown, GraphQLContext> | undefined;
  /** Its request-metric label, the path in OpenAPI form (`/v1/units/{unit}`). */
  readonly label: string;
  /** The CORS fields every answer of a shared route carries, whatever its status; none elsewhere. */
  readonly cors: Readonly<Record<string, string>>;
  /** Cache-Control of a successful answer (a latest-rates route's lasts until the next publication). */
  cacheControl(): string;
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** A request's place in the table: the routes on its path (for 404 and 405), and the endpoint its method reaches. */
export interface EndpointMatch {
  readonly match: RouteMatch;
  /** Undefined when no route on the path takes the method (405). */
  readonly endpoint: Endpoint | undefined;
}

/** Every route of the table compiled once. */
export class Endpoints {
  private readonly byRoute: ReadonlyMap<RestRoute, Endpoint>;

  constructor(schema: GraphQLSchema, latestMaxAge: () => number) {
    const fields = schema.getQueryType()!.getFields();
    this.byRoute = new Map(
      ROUTES.map((route) => [route, compileEndpoint(route, route.field === undefined ? undefined : fieldOf(route, fields), latestMaxAge)]),
    );
  }

  /** Where a (decoded-as-it-came) path and a method lead; HEAD reaches GET's endpoint (RFC 9110 9.3.2: its body is not sent). Undefined off the table (404). */
  find(pathname: string, method: string | undefined): EndpointMatch | undefined {
    const match = matchPath(pathname);
    if (match === undefined) return undefined;
    const wanted = method === 'HEAD' ? 'GET' : method;
    const route = match.routes.find((r) => r.method === wanted);
    return { match, endpoint: route === undefined ? undefined : this.byRoute.get(route) };
  }
}

/** The Query field a row names; a row naming a field the schema lacks stops the start, rather than failing each request. */
function fieldOf(route: RestRoute, fields: GraphQLFieldMap<unknown, GraphQLContext>): GraphQLField<unknown, GraphQLContext> {
  const field = fields[route.field!];
  if (field === undefined) throw new TypeError(`${route.method} ${route.path} names Query.${route.field}, which the schema does not have.`);
  return field;
}

function compileEndpoint(route: RestRoute, field: GraphQLField<unknown, GraphQLContext> | undefined, latestMaxAge: () => number): Endpoint {
  const fixed = cacheControl(route, latestMaxAge);
  return {
    route,
    field,
    label: openApiPath(route.path),
    cors: route.shared ? SHARED_CORS_HEADERS : NO_HEADERS,
    cacheControl: route.cache === 'latest-rates' ? () => cacheControl(route, latestMaxAge) : () => fixed,
  };
}

/** The JSON body of a POST route (415 for another media type, 413 past the route's limit, 400 unless JSON); a GET has none. */
export async function readRouteBody(
  route: RestRoute,
  contentType: string | null,
  read: (limit: number) => Promise<string>,
): Promise<{ text: string; value: unknown } | undefined> {
  if (route.method !== 'POST') return undefined;
  if (!isJsonContentType(contentType)) throw notJson();
  const text = await read(route.bodyLimit ?? DEFAULT_BODY_LIMIT);
  return { text, value: parseJsonBody(text) };
}

/**
 * The key (on keyed routes), then one request of the caller's rate limit, which covers the whole
 * request: the contract's order, before any input is read (request-spending.ts decides the bucket).
 */
export function admitCaller(route: RestRoute, context: HttpRequestContext, spending: Pick<RequestSpending, 'spendRequest'>): Promise<void> {
  return spending.spendRequest(context, route.access, 'request');
}

/**
 * The request's inputs as the field's arguments, checked strictly (rest-input.ts); a route that takes
 * no query parameters refuses any first, naming the first one.
 */
export function checkedArgs(
  endpoint: Endpoint,
  params: Record<string, string>,
  search: QueryParams,
  hasQuery: boolean,
  body: unknown,
): Record<string, unknown> {
  const route = endpoint.route;
  if (route.queryHint && hasQuery) throw new ApiError('INVALID_REQUEST', route.queryHint, { param: search.keys().next().value });
  return checkRestInput(route, endpoint.field!.args, argsOfPath(route, params), search, body);
}

/** The error as a REST caller reads it: the domain names the GraphQL argument (`id`), the caller sent the path's `:unit` or `:category`. */
function forRestCaller(error: ApiError, route: RestRoute): ApiError {
  if (error.param === undefined) return error;
  const param = pathParamOf(route, error.param);
  return param === error.param ? error : new ApiError(error.code, error.message, { ...error.details, param });
}

/**
 * The answer to a REST request that failed: an unexpected error logged, the
 * code noted for the access log, the error in the caller's terms (with the route, when one was
 * matched: see forRestCaller).
 */
export function failedAnswer(error: unknown, route: RestRoute | undefined, context: HttpRequestContext, log: Logger): ResponseParts {
  const api = failureOf(error, context, log);
  return restErrorParts(route === undefined ? api : forRestCaller(api, route), context.requestId);
}

/** A REST request the edge admitted, its inputs checked, ready for execution. */
export interface RouteCall {
  req: IncomingMessage;
  /** Where the answer goes: what an export holds its slot until it is sent on. */
  res: ServerResponse;
  endpoint: Endpoint;
  params: Record<string, string>;
  query: string;
  /** The Accept the answer is negotiated on: the request's, or the media type its signed link names. */
  accept: string | null;
  /** A POST route's body as sent. */
  body: string | undefined;
  args: Record<string, unknown>;
  context: HttpRequestContext;
}
