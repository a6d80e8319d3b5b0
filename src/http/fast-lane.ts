import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ExecutionResult, GraphQLField, GraphQLSchema } from 'graphql';
import type { YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import { ApiError } from '../domain/errors';
import type { GraphQLContext } from '../graphql/context';
import { selectAllJson } from '../graphql/serialize';
import { conversionsAsked, policyOf } from '../graphql/field-policy';
import { directResolver } from '../graphql/direct-resolver';
import type { Metrics } from '../metrics';
import type { AppServices } from '../services';
import { RequestContext, type RequestContextServices } from '../services/request-context';
import { isJsonContentType, notJson, parseJsonBody, readNodeBody, readNodeBytes } from './body';
import { GRAPHQL_PATH, graphQLAnswer, graphQLLaneMediaType, graphQLParamsOf, laneRequest, type GraphQLMediaType } from './graphql-lane';
import type { ServerContext } from './request-context';
import { withErrorCodes } from './use-error-codes';
import { clientIp, rateLimitBucket, type TrustProxy } from '../domain/client-ip';
import { toApiError, toGraphQLError } from './errors';
import { PrebuiltAnswers, type PrebuiltAnswer } from './prebuilt';
import { checkRestInput, queryParams } from './rest-input';
import { restErrorParts, restSuccessParts, withoutNullParams, type ResponseParts } from './rest-response';
import { argsOfPath, cacheControl, DEFAULT_BODY_LIMIT, matchPath, pathParamOf, routeLabel, ROUTES, routeTemplate, type RestRoute } from './routes';
import { SHARED_CORS_HEADERS } from './shared-resource';
import { headerText, pathOf, plainPathEnd } from './target';
import { withCostExtensions } from './use-cost-extensions';
import { logRequest } from './use-request-log';
import { limitHeaders } from './use-limit-headers';
import { API_SECURITY_HEADERS } from './use-security-headers';

export interface FastLaneOptions {
  /**
   * The schema whose root resolvers serve the routes, without the rate-limit directive's wrappers:
   * the fast lane spends the caller's request limit itself (spendRateLimit) before it checks the
   * inputs, after which the directive would spend nothing (pointsOf is 0 for a REST request).
   */
  schema: GraphQLSchema;
  services: AppServices;
  contextServices: RequestContextServices;
  /** Spends one request of the caller's rate limit, as the REST edge does (throws RATE_LIMIT_EXCEEDED). */
  spendRateLimit(kind: 'public' | 'key', context: RequestContext): Promise<void>;
  trust: TrustProxy;
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

/** The request-metric label of `POST /graphql`, as the node:http front names it. */
const GRAPHQL_LABEL = routeLabel(GRAPHQL_PATH);

/** A node:http listener that answers when it owns the request and returns false when it does not. */
export type FastLane = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * The fast lane takes only targets URL parsing leaves as they are (plainPathEnd), with no fragment
 * and no percent-encoded dot anywhere; anything else goes to Yoga, which normalises it its own way.
 */
const ENCODED_DOT = /%2e/i;
/** Answers at least this long (UTF-16 units) are sent as bytes encoded once. */
const LARGE_BODY = 8192;
/** Request targets whose pre-built answer is known (see `known` below): past this many, the map starts again; longer targets are not kept. */
const MAX_KNOWN_TARGETS = 4096;
const MAX_KNOWN_TARGET_LENGTH = 256;

/**
 * The REST routes of the route table served by a plain node:http handler in front of Yoga, which
 * spares each request Yoga's Fetch adaptation and SOFA's parse, validate and execute:
 * the same checks in the contract's order (media type, body, key, rate limit, inputs), the field's
 * own root resolver (so plan, quota and every rule are the ones GraphQL runs), the answer serialised
 * as SOFA would select it (graphql/serialize.ts), headers from the same functions the Yoga path
 * uses, and one `res.end()`, written together with the other answers of its event-loop turn. Known
 * targets of the pre-built catalogue routes skip straight to the answer. With `yoga`, it also takes
 * `POST /graphql` (serveGraphQL). What it does not own (GraphQL requests graphql-lane.ts leaves to
 * Yoga, GraphiQL, pages, OpenAPI, unknown paths, other methods) falls through to Yoga; the parity
 * tests (test/http/fast-lane.test.ts, graphql-lane.test.ts) hold both lanes to identical answers.
 */
export function createFastLane(options: FastLaneOptions): FastLane {
  const fields = options.schema.getQueryType()!.getFields();
  const yoga = options.yoga;
  /** Each root field's resolver with its argument rules checked synchronously (graphql/direct-resolver.ts). */
  const resolvers = new Map(Object.values(fields).map((field) => [field, directResolver(field)]));
  /** Each route's label in the request metrics. */
  const labels = new Map(ROUTES.map((route) => [route, routeTemplate(route)]));
  const cacheOf = (route: RestRoute) => cacheControl(route, () => options.services.rates.latestMaxAgeSeconds());
  const prebuilt = new PrebuiltAnswers();
  /**
   * GET targets of pre-built routes (`/v1/units/meter`) whose answer was found once: the answer
   * depends on the catalogue and the target alone, so the next request for the same target skips
   * route matching, input checks and the resolver; the key, rate-limit and If-None-Match steps
   * still run for it. Only answered targets are kept, and the map starts again when full, so made-up
   * targets cannot grow it.
   */
  const known = new Map<string, { route: RestRoute; answer: PrebuiltAnswer }>();
  /** A keep-alive connection's rate-limit bucket, computed once per socket (without X-Forwarded-For). */
  const socketBuckets = new WeakMap<Socket, string>();
  const bucketOf = (req: IncomingMessage) => {
    const forwarded = headerText(req.headers['x-forwarded-for']);
    const address = req.socket.remoteAddress ?? '127.0.0.1';
    if (forwarded !== null) return rateLimitBucket(clientIp(address, forwarded, options.trust));
    let bucket = socketBuckets.get(req.socket);
    if (bucket === undefined) {
      bucket = rateLimitBucket(clientIp(address, null, options.trust));
      if (req.socket.remoteAddress !== undefined) socketBuckets.set(req.socket, bucket);
    }
    return bucket;
  };
  const logging = () => options.log.isLevelEnabled('info');

  // REST answers confirm an unconfirmed key in `send` (limitHeaders); GraphQL results stand without it, so they check keys in full.
  const contextOf = (req: IncomingMessage, confirmsBeforeAnswer = false) =>
    new RequestContext(options.contextServices, { authorization: req.headers.authorization ?? null, clientBucket: () => bucketOf(req), confirmsBeforeAnswer });

  const serve = async (req: IncomingMessage, res: ServerResponse, route: RestRoute, params: Record<string, string>, query: string, target: string, started: number) => {
    const context = contextOf(req, true);
    let parts: ResponseParts;
    try {
      let body: unknown;
      if (route.method === 'POST') {
        if (!isJsonContentType(headerText(req.headers['content-type']))) throw notJson();
        body = parseJsonBody(await readNodeBody(req, route.bodyLimit ?? DEFAULT_BODY_LIMIT));
      }
      await admit(route, context);
      const search = queryParams(query);
      if (route.queryHint && query !== '') throw new ApiError('INVALID_REQUEST', route.queryHint, { param: search.keys().next().value });
      const field = fields[route.field!]!;
      const args = checkRestInput(route, field.args, argsOfPath(route, params), search, body);
      const graphQLContext: GraphQLContext = { requestContext: context, services: options.services, log: options.log };
      const value = await resolve(field, args, graphQLContext);
      const serialise = () => `{"data":${selectAllJson(options.schema, field.type, value, graphQLContext)}}`;
      if (route.prebuilt) {
        const answer = prebuilt.of(route, value, serialise);
        if (route.method === 'GET' && !route.queryHint) remember(target, route, answer);
        parts = restSuccessParts(route, answer.body, cacheOf(route), headerText(req.headers['if-none-match']), answer.etag);
      } else {
        // A large answer (a batch) is encoded once here: byteLength and res.end would each walk the text.
        const text = withoutNullParams(serialise());
        parts = restSuccessParts(route, text.length < LARGE_BODY ? text : Buffer.from(text), cacheOf(route), headerText(req.headers['if-none-match']));
      }
    } catch (error) {
      // A client gone before its body was read has no answer to get: `unexpected` notes it, at debug.
      if (req.socket.destroyed) throw error;
      parts = failure(error, route, context);
    }
    await send(req, res, labels.get(route)!, route.shared === true, context, parts, started);
  };

  /** A known target's answer: the same steps as `serve` for a pre-built GET route, none of the work already done for it. */
  const serveKnown = async (req: IncomingMessage, res: ServerResponse, route: RestRoute, answer: PrebuiltAnswer, started: number) => {
    const context = contextOf(req, true);
    let parts: ResponseParts;
    try {
      await admit(route, context);
      parts = restSuccessParts(route, answer.body, cacheOf(route), headerText(req.headers['if-none-match']), answer.etag);
    } catch (error) {
      parts = failure(error, route, context);
    }
    await send(req, res, labels.get(route)!, route.shared === true, context, parts, started);
  };

  /**
   * `POST /graphql` as Yoga answers it (graphql-lane.ts): the body read here, its parameters run by
   * Yoga's own getResultForParams, the result coded as useErrorCodes codes it, its cost extensions
   * added as useCostExtensions adds them, and written as Yoga's processRegularResult writes it, with the headers every answer carries. A body the lane will not
   * run goes to Yoga with the bytes already read (the Fetch adapter takes a read body as
   * `req.body`), and its answer is timed as the node:http front times Yoga's.
   */
  const serveGraphQL = async (req: IncomingMessage, res: ServerResponse, yoga: GraphQLYoga, mediaType: GraphQLMediaType, started: number) => {
    const bytes = await readNodeBytes(req);
    const params = graphQLParamsOf(bytes);
    if (params === undefined) {
      (req as IncomingMessage & { body?: Buffer }).body = bytes;
      res.once('close', () => record(req, GRAPHQL_LABEL, res.statusCode, started));
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
    await send(req, res, GRAPHQL_LABEL, false, context, graphQLAnswer(answered, mediaType), started);
  };

  /** The key (on keyed routes), then one request of the caller's rate limit: the contract's order, before any input is read. */
  const admit = async (route: RestRoute, context: RequestContext) => {
    if (route.access === 'key') await context.authenticate();
    await options.spendRateLimit(route.access, context);
  };

  const remember = (target: string, route: RestRoute, answer: PrebuiltAnswer) => {
    if (target.length > MAX_KNOWN_TARGET_LENGTH || known.has(target)) return;
    if (known.size >= MAX_KNOWN_TARGETS) known.clear();
    known.set(target, { route, answer });
  };

  const failure = (error: unknown, route: RestRoute, context: RequestContext): ResponseParts => {
    if (!(error instanceof ApiError)) options.log.error({ err: error, requestId: context.requestId }, 'unexpected error');
    const api = toApiError(error);
    context.errorCode = api.code;
    // The domain names the GraphQL argument (`id`); REST callers sent the path's `:unit` or `:category`.
    return restErrorParts(api.param === undefined ? api : withParam(api, pathParamOf(route, api.param)), context.requestId);
  };

  /** The headers every answer carries, then one writeHead and one end. */
  const send = async (req: IncomingMessage, res: ServerResponse, label: string, shared: boolean, context: RequestContext, parts: ResponseParts, started: number) => {
    const headers = parts.headers;
    Object.assign(headers, API_SECURITY_HEADERS);
    if (shared) Object.assign(headers, SHARED_CORS_HEADERS);
    headers['x-request-id'] = context.requestId;
    let limits = limitHeaders(context, options.services.quota, options.clock, (name) => name in headers);
    if (limits instanceof Promise) {
      try {
        limits = await limits;
      } catch (error) {
        // The quota could not be read for the headers (the database went away): a GraphQL result
        // stands without them; a REST answer becomes that error in the contract's shape (503 with
        // Retry-After), not a bare 500.
        if (label === GRAPHQL_LABEL) limits = {};
        else return failLimits(error);
      }
    }
    Object.assign(headers, limits);
    post({ req, res, label, started, status: parts.status, headers, body: parts.body, context });

    function failLimits(error: unknown) {
      if (!(error instanceof ApiError)) options.log.error({ err: error, requestId: context.requestId }, 'unexpected error');
      const failed = restErrorParts(toApiError(error), context.requestId);
      Object.assign(failed.headers, API_SECURITY_HEADERS, { 'x-request-id': context.requestId });
      if (shared) Object.assign(failed.headers, SHARED_CORS_HEADERS);
      post({ req, res, label, started, status: failed.status, headers: failed.headers, body: failed.body, context });
    }
  };

  /**
   * Answers are written together once the event loop has read what arrived in this turn
   * (setImmediate: after the poll phase, before the next wait), not one by one as each is ready.
   * Interleaved, each answer would wake a client that had just gone back to waiting; written in a
   * row, the answers after the first find their readers awake, which under load saves server CPU
   * per request and raises throughput (`npm run bench` measures it). An answer waits at most for
   * the rest of the turn it was ready in.
   *
   * `deliver` is scheduled when a request enters the lane, so it runs before the quota's group
   * commit of the same turn (also a setImmediate, scheduled later); answers that become ready after
   * it in that phase (the charged conversions) are already together and are written at once.
   */
  let outbox: Outgoing[] = [];
  let scheduled = false;
  let delivering = false;
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(deliver);
  };
  const post = (answer: Outgoing) => {
    if (delivering) return write(answer);
    outbox.push(answer);
    schedule();
  };
  const deliver = () => {
    scheduled = false;
    delivering = true;
    const answers = outbox;
    outbox = [];
    for (const answer of answers) write(answer);
  };
  const write = ({ req, res, label, started, status, headers, body, context }: Outgoing) => {
    try {
      // On HEAD, node:http sends the headers (Content-Length included) and drops the body itself.
      res.writeHead(status, headers);
      res.end(body);
      record(req, label, status, started);
      if (logging()) logRequest(options.log, { method: req.method!, path: pathOf(req.url!), status, context });
    } catch (error) {
      unexpected(req, res, started)(error);
    }
  };
  /** A request entered the lane in this turn: its answer waits for the turn's deliver. */
  const entered = () => {
    delivering = false;
    schedule();
  };

  /** The field's root resolver, as GraphQL execution would call it for a document of that one field. */
  const resolve = async (field: GraphQLField<unknown, GraphQLContext>, args: Record<string, unknown>, graphQLContext: GraphQLContext) => {
    const conversions = conversionsAsked(policyOf(field), args);
    if (conversions > 0) {
      const planned = graphQLContext.requestContext.planConversions([{ responseKey: field.name, conversions }]);
      if (planned) await planned;
    }
    // A fresh info per call, as graphql-js gives: nothing that keys state by it may see two requests as one.
    const info = { fieldName: field.name, path: { prev: undefined, key: field.name, typename: 'Query' }, returnType: field.type, parentType: options.schema.getQueryType(), schema: options.schema };
    return resolvers.get(field)!(undefined, args, graphQLContext, info as never);
  };

  const unexpected = (req: IncomingMessage, res: ServerResponse, started: number) => (error: unknown) => {
    if (req.socket.destroyed) {
      // The client closed its connection before its answer (a body cut off half-way): no fault of
      // the server's, and no one left to answer.
      options.log.debug({ err: error }, 'the client closed its connection before the answer');
    } else {
      options.log.error({ err: error }, 'unexpected error in the fast lane');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
    }
    res.end();
    record(req, routeLabel(pathOf(req.url)), res.statusCode, started);
  };

  /** The answer's request metric: the time since the request entered the lane. */
  const record = (req: IncomingMessage, label: string, status: number, started: number) =>
    options.metrics.request(label, req.method!, status, (performance.now() - started) / 1000);

  return (req, res) => {
    const started = performance.now();
    const target = req.url ?? '';
    // HEAD is a GET whose body is not sent (RFC 9110 9.3.2): same checks, limits and headers.
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    if (method === 'GET') {
      const hit = known.get(target);
      if (hit) {
        entered();
        serveKnown(req, res, hit.route, hit.answer, started).catch(unexpected(req, res, started));
        return true;
      }
    }
    if (target === GRAPHQL_PATH) {
      const mediaType = yoga && graphQLLaneMediaType(req);
      if (!yoga || !mediaType) return false;
      entered();
      serveGraphQL(req, res, yoga, mediaType, started).catch(unexpected(req, res, started));
      return true;
    }
    // Without a fragment, the path ends at `?` or at the end.
    const end = plainPathEnd(target);
    if (end < 0 || target.includes('#') || ENCODED_DOT.test(target)) return false;
    const match = matchPath(target.slice(0, end));
    const route = match?.routes.find((r) => r.method === method);
    if (!match || !route || route.field === undefined) return false;
    entered();
    serve(req, res, route, match.params, target.slice(end + 1), target, started).catch(unexpected(req, res, started));
    return true;
  };
}

/** One answer waiting in the outbox, and what its request metric and access-log line need. */
interface Outgoing {
  req: IncomingMessage;
  res: ServerResponse;
  /** The request metric's route label. */
  label: string;
  /** performance.now() when the request entered the lane. */
  started: number;
  status: number;
  headers: Record<string, string>;
  body: ResponseParts['body'];
  context: RequestContext;
}

function withParam(error: ApiError, param: string): ApiError {
  return param === error.param ? error : new ApiError(error.code, error.message, { ...error.details, param });
}
