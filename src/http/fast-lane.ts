import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { ExecutionResult, GraphQLField, GraphQLSchema } from 'graphql';
import type { YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { GraphQLContext } from '../graphql/context';
import { selectAllJson } from '../graphql/serialize';
import { conversionsAsked, policyOf } from '../graphql/field-policy';
import { directResolver } from '../graphql/direct-resolver';
import type { Metrics } from '../metrics';
import type { AppServices } from '../services';
import type { RequestContext } from '../services/request-context';
import { readNodeBody, readNodeBytes } from './body';
import { admitCaller, checkedArgs, failedAnswer, readRouteBody, type Endpoint, type Endpoints } from './endpoint';
import { GRAPHQL_PATH, graphQLAnswer, graphQLLaneMediaType, graphQLParamsOf, laneRequest, type GraphQLMediaType } from './graphql-lane';
import { createLaneWriter, GRAPHQL_LABEL, type LaneWriter } from './lane-writer';
import type { RequestOrigin, ServerContext } from './request-context';
import { withErrorCodes } from './use-error-codes';
import { toGraphQLError } from './errors';
import { negotiatedParts, negotiates } from './answer-formats';
import { PrebuiltAnswers, type PrebuiltAnswer } from './prebuilt';
import { queryParams } from './rest-input';
import { restSuccessParts, withoutNullParams, type ResponseParts } from './rest-response';
import { headerText, plainPathEnd } from './target';
import { withCostExtensions } from './use-cost-extensions';

export interface FastLaneOptions {
  /**
   * The schema whose root resolvers serve the routes, without the rate-limit directive's wrappers:
   * the fast lane spends the caller's request limit itself (spendRateLimit) before it checks the
   * inputs, after which the directive would spend nothing (pointsOf is 0 for a REST request).
   */
  schema: GraphQLSchema;
  /** The route table compiled once (shared with the REST edge in front of SOFA), its fields this schema's. */
  endpoints: Endpoints;
  services: AppServices;
  /** Each request's context, built as the Yoga path builds it (request-context.ts). */
  contextOf(origin: RequestOrigin): RequestContext;
  /** Spends one request of the caller's rate limit, as the REST edge does (throws RATE_LIMIT_EXCEEDED). */
  spendRateLimit(kind: 'public' | 'key', context: RequestContext): Promise<void>;
  log: Logger;
  clock: () => Date;
  /** Where each answer's request metric goes, recorded when it is written (the node:http front records none for the lane). */
  metrics: Pick<Metrics, 'request'>;
  /**
   * The Yoga server: `POST /graphql` requests the lane takes run through its getResultForParams, and
   * one the lane has read but does not run is handed to it, bytes and all. Without it the lane
   * serves REST only.
   */
  yoga?: GraphQLYoga;
}

/** Yoga's node:http listener and its parameters step (graphql-yoga's YogaServer.getResultForParams). */
export type GraphQLYoga = RequestListener & Pick<YogaServerInstance<ServerContext, GraphQLContext>, 'getResultForParams'>;

/** A node:http listener that answers when it owns the request and returns false when it does not. */
export type FastLane = (req: IncomingMessage, res: ServerResponse) => boolean;

/** Answers at least this long (UTF-16 units) are sent as bytes encoded once. */
const LARGE_BODY = 8192;

/**
 * The REST routes of the route table served by a plain node:http handler in front of Yoga, which
 * spares each request Yoga's Fetch adaptation and SOFA's parse, validate and execute:
 * the same steps as the REST edge in front of SOFA (endpoint.ts: media type, body, key, rate limit,
 * inputs), the field's own root resolver (so plan, quota and every rule are the ones GraphQL runs),
 * the answer serialised as SOFA would select it (graphql/serialize.ts), headers from the same
 * functions the Yoga path uses, and one `res.end()`, written together with the other answers of its
 * event-loop turn (outbox.ts). Known targets of the pre-built catalogue routes skip straight to the
 * answer. With `yoga`, it also takes `POST /graphql` (serveGraphQL). What it does not own (GraphQL
 * requests graphql-lane.ts leaves to Yoga, GraphiQL, pages, OpenAPI, unknown paths, other methods)
 * falls through to Yoga; the parity tests (test/http/fast-lane.test.ts, graphql-lane.test.ts) hold
 * both lanes to identical answers.
 */
export function createFastLane(options: FastLaneOptions): FastLane {
  const execute = directExecution(options.schema);
  const prebuilt = new PrebuiltAnswers();
  const known = new KnownTargets();
  const writer = createLaneWriter(options);
  // REST answers confirm an unconfirmed key in `send` (limitHeaders); GraphQL results stand without it, so they check keys in full.
  const contextOf = (req: IncomingMessage, confirmsBeforeAnswer = false) =>
    options.contextOf({ authorization: req.headers.authorization ?? null, forwardedFor: headerText(req.headers['x-forwarded-for']), socket: req.socket, confirmsBeforeAnswer });
  const serveGraphQL = graphQLServer(options, writer, contextOf);

  const serve = async (req: IncomingMessage, res: ServerResponse, endpoint: Endpoint, params: Record<string, string>, query: string, started: number) => {
    const context = contextOf(req, true);
    let parts: ResponseParts;
    try {
      const body = await readRouteBody(endpoint.route, headerText(req.headers['content-type']), (limit) => readNodeBody(req, limit));
      await admitCaller(endpoint.route, context, options.spendRateLimit);
      const args = checkedArgs(endpoint, params, queryParams(query), query !== '', body?.value);
      const graphQLContext: GraphQLContext = { requestContext: context, services: options.services, log: options.log };
      parts = answer(req, endpoint, await execute(endpoint.field!, args, graphQLContext), graphQLContext, query);
    } catch (error) {
      // A client gone before its body was read has no answer to get: `unexpected` notes it, at debug.
      if (req.socket.destroyed) throw error;
      parts = failedAnswer(error, endpoint.route, context, options.log);
    }
    await writer.send(req, res, endpoint, context, parts, started);
  };

  /** The field's value as the route's answer: a pre-built route's bytes kept (and its target remembered), any other's serialised. */
  const answer = (req: IncomingMessage, endpoint: Endpoint, value: unknown, graphQLContext: GraphQLContext, query: string): ResponseParts => {
    const route = endpoint.route;
    const serialise = () => `{"data":${selectAllJson(options.schema, endpoint.field!.type, value, graphQLContext)}}`;
    const ifNoneMatch = headerText(req.headers['if-none-match']);
    if (route.prebuilt) {
      const built = prebuilt.of(route, value, serialise);
      if (route.method === 'GET' && !route.queryHint) known.remember(req.url ?? '', endpoint, built);
      return restSuccessParts(endpoint, built.body, ifNoneMatch, built.etag);
    }
    // A route with other media types (CSV, NDJSON) renders them from the same JSON answer.
    if (negotiates(route)) return negotiatedParts(route, withoutNullParams(serialise()), { accept: headerText(req.headers.accept), ifNoneMatch, query });
    // A large answer (a batch) is encoded once here: byteLength and res.end would each walk the text.
    const text = withoutNullParams(serialise());
    return restSuccessParts(endpoint, text.length < LARGE_BODY ? text : Buffer.from(text), ifNoneMatch);
  };

  /** A known target's answer: the same steps as `serve` for a pre-built GET route, none of the work already done for it. */
  const serveKnown = async (req: IncomingMessage, res: ServerResponse, endpoint: Endpoint, built: PrebuiltAnswer, started: number) => {
    const context = contextOf(req, true);
    let parts: ResponseParts;
    try {
      await admitCaller(endpoint.route, context, options.spendRateLimit);
      parts = restSuccessParts(endpoint, built.body, headerText(req.headers['if-none-match']), built.etag);
    } catch (error) {
      parts = failedAnswer(error, endpoint.route, context, options.log);
    }
    await writer.send(req, res, endpoint, context, parts, started);
  };

  return (req, res) => {
    const started = performance.now();
    const owned = laneRequestOf(req, known, options.endpoints, options.yoga);
    if (owned === undefined) return false;
    writer.entered();
    const served =
      owned.kind === 'known' ? serveKnown(req, res, owned.endpoint, owned.answer, started)
      : owned.kind === 'graphql' ? serveGraphQL(req, res, owned.yoga, owned.mediaType, started)
      : serve(req, res, owned.endpoint, owned.params, owned.query, started);
    served.catch(writer.unexpected(req, res, started));
    return true;
  };
}

/**
 * `POST /graphql` as Yoga answers it (graphql-lane.ts): the body read here, its parameters run by
 * Yoga's own getResultForParams, the result coded as useErrorCodes codes it, its cost extensions
 * added as useCostExtensions adds them, and written as Yoga's processRegularResult writes it, with
 * the headers every answer carries. A body the lane will not run goes to Yoga with the bytes
 * already read (the Fetch adapter takes a read body as `req.body`), and its answer is timed as the
 * node:http front times Yoga's.
 */
function graphQLServer(options: FastLaneOptions, writer: LaneWriter, contextOf: (req: IncomingMessage) => RequestContext) {
  return async (req: IncomingMessage, res: ServerResponse, yoga: GraphQLYoga, mediaType: GraphQLMediaType, started: number) => {
    const bytes = await readNodeBytes(req);
    const params = graphQLParamsOf(bytes);
    if (params === undefined) {
      (req as IncomingMessage & { body?: Buffer }).body = bytes;
      res.once('close', () => writer.record(req, GRAPHQL_LABEL, res.statusCode, started));
      void yoga(req, res);
      return;
    }
    const context = contextOf(req);
    let result: ExecutionResult;
    try {
      result = (await yoga.getResultForParams({ params, request: laneRequest(req) }, { req, requestContext: context })) as ExecutionResult;
    } catch (error) {
      // Yoga turns a step that throws into a masked error the same way (its handleError).
      options.log.error({ err: error, requestId: context.requestId }, 'unexpected error');
      result = { errors: [toGraphQLError(error)] };
    }
    const answered = await withCostExtensions(withErrorCodes(result, context, options.log), context, options.services.quota, options.clock);
    await writer.send(req, res, undefined, context, graphQLAnswer(answered, mediaType), started);
  };
}

/** What the lane serves a request as, when it owns it. */
type Owned =
  | { kind: 'known'; endpoint: Endpoint; answer: PrebuiltAnswer }
  | { kind: 'graphql'; yoga: GraphQLYoga; mediaType: GraphQLMediaType }
  | { kind: 'rest'; endpoint: Endpoint; params: Record<string, string>; query: string };

/**
 * The fast lane takes only targets URL parsing leaves as they are (plainPathEnd), with no fragment
 * and no percent-encoded dot anywhere; anything else goes to Yoga, which normalises it its own way.
 */
const ENCODED_DOT = /%2e/i;

/** Whether the lane owns this request, and as what; undefined leaves it to Yoga. */
function laneRequestOf(req: IncomingMessage, known: KnownTargets, endpoints: Endpoints, yoga: GraphQLYoga | undefined): Owned | undefined {
  const target = req.url ?? '';
  // HEAD is a GET whose body is not sent (RFC 9110 9.3.2): same checks, limits and headers.
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  if (method === 'GET') {
    const hit = known.get(target);
    if (hit) return hit;
  }
  if (target === GRAPHQL_PATH) {
    const mediaType = yoga && graphQLLaneMediaType(req);
    return yoga && mediaType ? { kind: 'graphql', yoga, mediaType } : undefined;
  }
  // Without a fragment, the path ends at `?` or at the end.
  const end = plainPathEnd(target);
  if (end < 0 || target.includes('#') || ENCODED_DOT.test(target)) return undefined;
  const found = endpoints.find(target.slice(0, end), req.method);
  if (found?.endpoint?.route.field === undefined) return undefined;
  return { kind: 'rest', endpoint: found.endpoint, params: found.match.params, query: target.slice(end + 1) };
}

/** Request targets whose pre-built answer is known: past this many, the map starts again; longer targets are not kept. */
const MAX_KNOWN_TARGETS = 4096;
const MAX_KNOWN_TARGET_LENGTH = 256;

/**
 * GET targets of pre-built routes (`/v1/units/meter`) whose answer was found once: the answer
 * depends on the catalogue and the target alone, so the next request for the same target skips
 * route matching, input checks and the resolver; the key, rate-limit and If-None-Match steps
 * still run for it. Only answered targets are kept, and the map starts again when full, so made-up
 * targets cannot grow it.
 */
class KnownTargets {
  private readonly targets = new Map<string, Owned & { kind: 'known' }>();

  get(target: string): (Owned & { kind: 'known' }) | undefined {
    return this.targets.get(target);
  }

  remember(target: string, endpoint: Endpoint, answer: PrebuiltAnswer): void {
    if (target.length > MAX_KNOWN_TARGET_LENGTH || this.targets.has(target)) return;
    if (this.targets.size >= MAX_KNOWN_TARGETS) this.targets.clear();
    this.targets.set(target, { kind: 'known', endpoint, answer });
  }
}

/**
 * Each root field called as GraphQL execution would call it for a document of that one field: its
 * conversions planned first, then its resolver with its argument rules checked synchronously
 * (graphql/direct-resolver.ts).
 */
function directExecution(schema: GraphQLSchema) {
  const queryType = schema.getQueryType()!;
  const resolvers = new Map(Object.values(queryType.getFields()).map((field) => [field, directResolver(field)]));
  return async (field: GraphQLField<unknown, GraphQLContext>, args: Record<string, unknown>, graphQLContext: GraphQLContext): Promise<unknown> => {
    const conversions = conversionsAsked(policyOf(field), args);
    if (conversions > 0) {
      const planned = graphQLContext.requestContext.planConversions([{ responseKey: field.name, conversions }]);
      if (planned) await planned;
    }
    // A fresh info per call, as graphql-js gives: nothing that keys state by it may see two requests as one.
    const info = { fieldName: field.name, path: { prev: undefined, key: field.name, typename: 'Query' }, returnType: field.type, parentType: queryType, schema };
    return resolvers.get(field)!(undefined, args, graphQLContext, info as never);
  };
}
