import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GraphQLField, GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import { ApiError } from '../../domain/errors';
import type { LanguageChoice } from '../../domain/language/choose';
import { quoteInput } from '../../domain/quote-input';
import type { GraphQLContext } from '../../graphql/context';
import { restOmittedWhenNull, selectAllJson } from '../../graphql/serialize';
import { conversionsAsked, policyOf } from '../../graphql/field-policy';
import { directResolver } from '../../graphql/direct-resolver';
import type { RestExecution } from '../../config';
import type { Metrics } from '../../metrics';
import type { AppServices } from '../../services';
import { readNodeBody } from '../front/body';
import {
  admitCaller,
  checkedArgs,
  failedAnswer,
  readRouteBody,
  type Endpoint,
  type EndpointMatch,
  type Endpoints,
  type RouteCall,
} from './endpoint';
import type { AnswerPlace, Finish } from '../front/finish';
import type { FrontHandler, GraphQLYoga } from '../graphql/yoga-answers';
import { GRAPHQL_PATH } from '../graphql/graphql-http';
import { negotiates } from '../answer/answer-formats';
import { admitSignedLink, movedLink } from './signed-link';
import { chosenFormat } from './export-format';
import { SERIES_EXPORT_PATH } from '../../services/series-links';
import { seriesExportExecution } from './series-export';
import { prebuild, PrebuiltAnswers, type PrebuiltAnswer } from './prebuilt';
import { queryParams } from './rest-input';
import { JSON_CONTENT_TYPE, type ResponseParts } from '../answer/answer-parts';
import { restSuccessParts, withoutOmittedNulls } from './rest-response';
import { allowedMethods, matchPath, routeLabel } from '../routes';
import { etagMatches, preflightParts, SHARED_CORS_HEADERS } from '../answer/shared-resource';
import { sofaExecution } from './sofa-execution';
import type { RequestSpending } from '../limits/request-spending';
import { headerText, targetParts } from '../front/target';
import type { HttpRequestContext } from '../front/request-context';

interface EdgeOptions {
  /**
   * The schema whose root resolvers serve the routes, without the rate-limit directive's wrappers:
   * the edge spends the caller's request limit itself (`spending`) before it checks the inputs, and
   * that spend covers the request (a field run through SOFA spends nothing more).
   */
  schema: GraphQLSchema;
  /** The route table, compiled once. */
  endpoints: Endpoints;
  services: AppServices;
  /** The front's one finish: every answer of the edge leaves through it. */
  finish: Finish;
  /** The request rate limit: one request spent at admission (throws RATE_LIMIT_EXCEEDED); a series export spends its cost through its request context. */
  spending: Pick<RequestSpending, 'spendRequest'>;
  log: Logger;
  clock: () => Date;
  /** Where series exports are counted. */
  metrics: Pick<Metrics, 'seriesExport'>;
  /** The Yoga server: SOFA's execution (REST_EXECUTION=sofa), and the executor of GraphQL parameters. */
  yoga: GraphQLYoga;
  /**
   * REST_EXECUTION: `direct` calls a route's field resolver directly; `sofa` executes the route
   * through SOFA in Yoga. Admission, inputs and every header are the edge's either way.
   */
  execution: RestExecution;
  /** The post-processed OpenAPI document, served at /openapi.json. */
  openapi(): string;
}

/** Answers at least this long (UTF-16 units) are sent as bytes encoded once. */
const LARGE_BODY = 8192;

/**
 * The one REST edge: the front hands it every request whose path no other handler owns (GraphQL,
 * GraphiQL, the account pages, /metrics). Each row of the route table is an
 * endpoint (endpoint.ts): its body, key, rate limit and inputs are checked here in the contract's
 * order, then its field is executed (its resolver called directly, or SOFA through Yoga: REST_EXECUTION),
 * and the answer is finished by the front's one finish (finish.ts), sent together with the other
 * answers of its event-loop turn. Known targets of the pre-built catalogue routes skip straight to
 * the answer. The parity suites (test/http/rest-executions.test.ts,
 * graphql-post.test.ts) hold both executions to identical answers.
 */
export function createEdge(options: EdgeOptions): FrontHandler {
  const prebuilt = new PrebuiltAnswers();
  const known = new KnownTargets();
  const writer = options.finish;
  const direct = options.execution === 'direct';
  const omitted = restOmittedWhenNull(options.schema);
  const execute = direct
    ? directExecution(options, prebuilt, known)
    : sofaExecution(options.yoga, (call, json) => jsonAnswer(call, withoutOmittedNulls(json, omitted)));
  const exportSeries = seriesExportExecution(options);
  const openapi = prebuild(options.openapi());

  /** What a path and method lead to: 404 off the table, 405 (or a shared path's preflight) for another method, else the endpoint's answer. */
  const routeAnswer = async (
    req: IncomingMessage,
    res: ServerResponse,
    owned: RestRequest,
    context: HttpRequestContext,
  ): Promise<ResponseParts> => {
    const { found, pathname, query } = owned;
    if (!found) throw noRoute(pathname);
    const endpoint = found.endpoint;
    if (!endpoint) {
      if (req.method === 'OPTIONS' && found.match.routes.some((r) => r.shared)) return preflightParts();
      const allow = allowedMethods(found.match.routes);
      throw new ApiError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${quoteInput(pathname)}; use ${allow}.`, {
        allow: allow.split(', '),
      });
    }
    const body = await readRouteBody(endpoint.route, headerText(req.headers['content-type']), (limit) => readNodeBody(req, limit));
    const links = options.services.seriesLinks;
    // A signed link is its route's authentication: checked here, before the key's rate limit is spent.
    const link = endpoint.route.signedLink ? admitSignedLink(query, context, links) : undefined;
    if (link === undefined && endpoint.route.path === SERIES_EXPORT_PATH) {
      const moved = movedLink(query, links);
      if (moved) return moved;
    }
    const chosen = link ?? chosenFormat(endpoint.route, query);
    const inputs = chosen?.query ?? query;
    await admitCaller(endpoint.route, context, options.spending);
    if (endpoint.field === undefined) return documentAnswer(endpoint, pathname, query, openapi, headerText(req.headers['if-none-match']));
    const args = checkedArgs(endpoint, found.match.params, queryParams(inputs), inputs !== '', body?.value);
    // A route with formats is an export, written in chunks the same way in both executions.
    return (negotiates(endpoint.route) ? exportSeries : execute)({
      req,
      res,
      endpoint,
      params: found.match.params,
      query: inputs,
      accept: chosen?.accept ?? headerText(req.headers.accept),
      body: body?.text,
      args,
      context,
    });
  };

  const serve = async (req: IncomingMessage, res: ServerResponse, owned: RestRequest, context: HttpRequestContext, started: number) => {
    // Directly executed answers confirm a key taken from the cache unconfirmed as they leave (finish.ts).
    context.confirmsBeforeAnswer = direct;
    let parts: ResponseParts;
    try {
      parts = await routeAnswer(req, res, owned, context);
    } catch (error) {
      // A client gone before its body was read has no answer to get: `unexpected` notes it, at debug.
      if (req.socket.destroyed) throw error;
      parts = failedAnswer(error, owned.found?.endpoint?.route, context, options.log);
    }
    await writer.send(req, res, placeOf(owned), context, parts, started);
  };

  const serveKnown = knownTargetServer(options);

  return (req, res, context, started) => {
    const owned = ownedRequest(req, known, options.endpoints);
    writer.entered();
    const served = owned.kind === 'known' ? serveKnown(req, res, owned, context, started) : serve(req, res, owned, context, started);
    served.catch(writer.unexpected(req, res, owned.kind === 'known' ? owned.endpoint : placeOf(owned), context, started));
  };
}

/** A known target's answer: the same steps as `serve` for a pre-built GET route, none of the work already done for it. */
function knownTargetServer(options: EdgeOptions) {
  return async (
    req: IncomingMessage,
    res: ServerResponse,
    { endpoint, answer: built, languages }: KnownAnswer,
    context: HttpRequestContext,
    started: number,
  ) => {
    context.confirmsBeforeAnswer = true;
    context.noteLanguages(languages);
    let parts: ResponseParts;
    try {
      await admitCaller(endpoint.route, context, options.spending);
      parts = prebuiltParts(endpoint, built, headerText(req.headers['if-none-match']));
    } catch (error) {
      parts = failedAnswer(error, endpoint.route, context, options.log);
    }
    await options.finish.send(req, res, endpoint, context, parts, started);
  };
}

/**
 * The 404 of a path off the table. A path that is a route but for trailing slashes names that
 * route: every route has one spelling, and a 404 that says which is plainer than a redirect (which
 * a POST or a keyed client may not follow).
 */
function noRoute(pathname: string): ApiError {
  const bare = pathname.replace(/\/+$/, '');
  if (bare !== pathname && bare !== '' && (matchPath(bare) !== undefined || bare === GRAPHQL_PATH)) {
    return new ApiError(
      'NOT_FOUND',
      `There is no route ${quoteInput(pathname)}: routes are written without a trailing slash; use ${quoteInput(bare)}.`,
    );
  }
  return new ApiError('NOT_FOUND', `There is no route ${quoteInput(pathname)}. See GET /openapi.json.`);
}

/** A route's field run by its resolver, its answer serialised as SOFA would select it; a pre-built route's bytes kept (and its target remembered). */
function directExecution(options: EdgeOptions, prebuilt: PrebuiltAnswers, known: KnownTargets) {
  const run = fieldRunner(options.schema);
  return async (call: RouteCall): Promise<ResponseParts> => {
    const graphQLContext: GraphQLContext = { requestContext: call.context, services: options.services, log: options.log };
    const { endpoint, req } = call;
    const value = await run(endpoint.field!, call.args, graphQLContext);
    const serialise = () => `{"data":${selectAllJson(options.schema, endpoint.field!.type, value, graphQLContext)}}`;
    if (!endpoint.route.prebuilt) return jsonAnswer(call, serialise());
    const languages = call.context.languages;
    const built = prebuilt.of(endpoint.route, value, serialise, languages.map((c) => c.used).join(','));
    if (endpoint.route.method === 'GET' && !endpoint.route.queryHint) known.remember(knownKey(req), endpoint, built, [...languages]);
    return prebuiltParts(endpoint, built, headerText(req.headers['if-none-match']));
  };
}

/** A pre-built answer: the same bytes on every request, so its compressed forms are made once. */
function prebuiltParts(endpoint: Endpoint, built: PrebuiltAnswer, ifNoneMatch: string | null): ResponseParts {
  return { ...restSuccessParts(endpoint, built.body, ifNoneMatch, built.etag), prebuilt: true };
}

/** A route's `{"data": ...}` text as its answer, a large one (a batch) encoded once. */
function jsonAnswer(call: RouteCall, text: string): ResponseParts {
  const ifNoneMatch = headerText(call.req.headers['if-none-match']);
  return restSuccessParts(call.endpoint, text.length < LARGE_BODY ? text : Buffer.from(text), ifNoneMatch);
}

/** A route served outside GraphQL: the OpenAPI document, pre-built (its bytes and their compressed forms made once). */
function documentAnswer(
  endpoint: Endpoint,
  pathname: string,
  query: string,
  document: PrebuiltAnswer,
  ifNoneMatch: string | null,
): ResponseParts {
  if (query !== '') throw new ApiError('INVALID_REQUEST', `${pathname} takes no query parameters.`);
  const headers = { 'cache-control': endpoint.cacheControl(), etag: document.etag };
  // Not Modified names the validator and the caching fields, never a type or length.
  if (etagMatches(ifNoneMatch, document.etag)) return { status: 304, headers, body: null };
  const typed = { 'content-type': JSON_CONTENT_TYPE, ...headers, 'content-length': String(document.body.length) };
  return { status: 200, headers: typed, body: document.body, prebuilt: true };
}

/** Where an answer goes in the metrics and which CORS fields it carries: its endpoint's, or its path's off the table. */
function placeOf({ found, pathname }: RestRequest): AnswerPlace {
  if (found?.endpoint) return found.endpoint;
  return { label: routeLabel(pathname), cors: found?.match.routes.some((r) => r.shared) ? SHARED_CORS_HEADERS : undefined };
}

/** What the edge serves a request as, when it owns it. */
type Owned = KnownAnswer | RestRequest;

/** A known target's kept answer, and the languages of its names (its Content-Language). */
interface KnownAnswer {
  kind: 'known';
  endpoint: Endpoint;
  answer: PrebuiltAnswer;
  languages: readonly LanguageChoice[];
}

interface RestRequest {
  kind: 'rest';
  pathname: string;
  query: string;
  /** Its place in the route table; undefined off it (404). */
  found: EndpointMatch | undefined;
}

/** What the edge serves a request as: a known target's kept answer, or a place in the route table (or none: 404). */
function ownedRequest(req: IncomingMessage, known: KnownTargets, endpoints: Endpoints): Owned {
  const target = req.url ?? '';
  // HEAD is a GET whose body is not sent (RFC 9110 9.3.2): same checks, limits and headers.
  if (req.method === 'GET' || req.method === 'HEAD') {
    const hit = known.get(knownKey(req));
    if (hit) return hit;
  }
  const parts = targetParts(target) ?? { pathname: '', query: '' };
  return { kind: 'rest', ...parts, found: endpoints.find(parts.pathname, req.method) };
}

/** Request targets whose pre-built answer is known: past this many, the map starts again; longer targets are not kept. */
const MAX_KNOWN_TARGETS = 4096;
const MAX_KNOWN_TARGET_LENGTH = 256;

/** A known target's key: the target and the Accept-Language it was asked with (the names follow it when the target has no `lang`). */
function knownKey(req: IncomingMessage): string {
  const acceptLanguage = headerText(req.headers['accept-language']);
  return acceptLanguage === null ? (req.url ?? '') : `${req.url ?? ''}\n${acceptLanguage}`;
}

/**
 * GET targets of pre-built routes (`/v1/units/meter`) whose answer was found once: the answer
 * depends on the catalogue, the target and its Accept-Language alone, so the next request for the same target skips
 * route matching, input checks and the resolver; the key, rate-limit and If-None-Match steps
 * still run for it. Only answered targets are kept, and the map starts again when full, so made-up
 * targets cannot grow it.
 */
class KnownTargets {
  private readonly targets = new Map<string, KnownAnswer>();

  get(target: string): KnownAnswer | undefined {
    return this.targets.get(target);
  }

  remember(target: string, endpoint: Endpoint, answer: PrebuiltAnswer, languages: readonly LanguageChoice[]): void {
    if (target.length > MAX_KNOWN_TARGET_LENGTH || this.targets.has(target)) return;
    if (this.targets.size >= MAX_KNOWN_TARGETS) this.targets.clear();
    this.targets.set(target, { kind: 'known', endpoint, answer, languages });
  }
}

/**
 * Each root field called as GraphQL execution would call it for a document of that one field: its
 * conversions planned first, then its resolver with its argument rules checked synchronously
 * (graphql/direct-resolver.ts).
 */
function fieldRunner(schema: GraphQLSchema) {
  const queryType = schema.getQueryType()!;
  const resolvers = new Map(Object.values(queryType.getFields()).map((field) => [field, directResolver(field)]));
  return async (
    field: GraphQLField<unknown, GraphQLContext>,
    args: Record<string, unknown>,
    graphQLContext: GraphQLContext,
  ): Promise<unknown> => {
    const conversions = conversionsAsked(policyOf(field), args);
    if (conversions > 0) {
      const planned = graphQLContext.requestContext.planConversions([{ responseKey: field.name, conversions }]);
      if (planned) await planned;
    }
    // A fresh info per call, as graphql-js gives: nothing that keys state by it may see two requests as one.
    const info = {
      fieldName: field.name,
      path: { prev: undefined, key: field.name, typename: 'Query' },
      returnType: field.type,
      parentType: queryType,
      schema,
    };
    return resolvers.get(field)!(undefined, args, graphQLContext, info as never);
  };
}
