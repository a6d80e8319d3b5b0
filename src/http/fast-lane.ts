import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GraphQLField, GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import { ApiError } from '../domain/errors';
import type { GraphQLContext } from '../graphql/context';
import { selectAllJson } from '../graphql/serialize';
import { CONVERSION_FIELDS } from '../graphql/limits';
import type { AppServices } from '../services';
import { RequestContext, type RequestContextServices } from '../services/request-context';
import { isJsonContentType, parseJsonBody, tooLarge } from './body';
import { clientIp, rateLimitBucket, type TrustProxy } from '../domain/client-ip';
import { toApiError } from './errors';
import { PrebuiltAnswers } from './prebuilt';
import { checkRestInput } from './rest-input';
import { restErrorParts, restSuccessParts, type ResponseParts } from './rest-response';
import { argsOfPath, cacheControl, DEFAULT_BODY_LIMIT, matchPath, pathParamOf, type RestRoute } from './routes';
import { SHARED_CORS_HEADERS } from './shared-resource';
import { logRequest } from './use-request-log';
import { limitHeaders } from './use-limit-headers';
import { API_SECURITY_HEADERS } from './use-security-headers';

export interface FastLaneOptions {
  /** The executable schema: its root resolvers (rate-limit directive included) serve the routes. */
  schema: GraphQLSchema;
  services: AppServices;
  contextServices: RequestContextServices;
  /** Spends one request of the caller's rate limit, as the REST edge does (throws RATE_LIMIT_EXCEEDED). */
  spendRateLimit(kind: 'public' | 'key', context: RequestContext): Promise<void>;
  trust: TrustProxy;
  log: Logger;
  clock: () => Date;
}

/** A node:http listener that answers when it owns the request and returns false when it does not. */
export type FastLane = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * Request targets the fast lane reads exactly as the WHATWG URL parser behind Yoga would: a plain
 * origin-form path without dot segments (also percent-encoded ones) and no fragment. Anything else
 * goes to Yoga, which normalises it its own way.
 */
const PLAIN_TARGET = /^(\/[A-Za-z0-9\-_~!$&'()*+,;=:@%]+)+(\?[^#]*)?$|^\/[^?#/]*(\?[^#]*)?$/;
const ENCODED_DOT = /%2e/i;
/** Answers at least this long (UTF-16 units) are sent as bytes encoded once. */
const LARGE_BODY = 8192;

/**
 * The REST routes of the route table served by a plain node:http handler in front of Yoga (issue 8):
 * the same checks in the contract's order (media type, body, key, rate limit, inputs), the field's
 * own root resolver (so plan, quota and every rule are the ones GraphQL runs), the answer serialised
 * as SOFA would select it (graphql/serialize.ts), headers from the same functions the Yoga path
 * uses, and one `res.end()`. What it does not own (GraphQL, pages, OpenAPI, unknown paths, other
 * methods) falls through to Yoga; the parity tests hold both lanes to identical answers.
 */
export function createFastLane(options: FastLaneOptions): FastLane {
  const fields = options.schema.getQueryType()!.getFields();
  const cacheOf = (route: RestRoute) => cacheControl(route, () => options.services.rates.latestMaxAgeSeconds());
  const prebuilt = new PrebuiltAnswers();

  const serve = async (req: IncomingMessage, res: ServerResponse, route: RestRoute, params: Record<string, string>, query: string) => {
    const context = new RequestContext(options.contextServices, {
      authorization: req.headers.authorization ?? null,
      clientBucket: () => rateLimitBucket(clientIp(req.socket.remoteAddress ?? '127.0.0.1', headerText(req.headers['x-forwarded-for']), options.trust)),
    });
    let parts: ResponseParts;
    try {
      let body: unknown;
      if (route.method === 'POST') {
        if (!isJsonContentType(headerText(req.headers['content-type']))) throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.');
        body = parseJsonBody(await readNodeBody(req, route.bodyLimit ?? DEFAULT_BODY_LIMIT));
      }
      if (route.access === 'key') await context.authenticate();
      await options.spendRateLimit(route.access, context);
      const search = new URLSearchParams(query);
      if (route.queryHint && query !== '') throw new ApiError('INVALID_REQUEST', route.queryHint, { param: search.keys().next().value });
      const field = fields[route.field!]!;
      const args = checkRestInput(route, field.args, argsOfPath(route, params), search, body);
      const graphQLContext: GraphQLContext = { requestContext: context, services: options.services, log: options.log };
      const value = await resolve(field, args, graphQLContext);
      const serialise = () => `{"data":${selectAllJson(options.schema, field.type, value, graphQLContext)}}`;
      const ifNoneMatch = headerText(req.headers['if-none-match']);
      if (route.prebuilt) {
        const answer = prebuilt.of(route, value, serialise);
        parts = restSuccessParts(route, answer.body, cacheOf(route), ifNoneMatch, answer.etag);
      } else {
        // A large answer (a batch) is encoded once here: byteLength and res.end would each walk the text.
        const text = serialise();
        parts = restSuccessParts(route, text.length < LARGE_BODY ? text : Buffer.from(text), cacheOf(route), ifNoneMatch);
      }
    } catch (error) {
      if (!(error instanceof ApiError)) options.log.error({ err: error, requestId: context.requestId }, 'unexpected error');
      const api = toApiError(error);
      // The domain names the GraphQL argument (`id`); REST callers sent the path's `:unit` or `:category`.
      parts = restErrorParts(api.param === undefined ? api : withParam(api, pathParamOf(route, api.param)), context.requestId);
    }
    Object.assign(parts.headers, API_SECURITY_HEADERS);
    if (route.shared) Object.assign(parts.headers, SHARED_CORS_HEADERS);
    parts.headers['x-request-id'] = context.requestId;
    Object.assign(parts.headers, await limitHeaders(context, options.services.quota, options.clock, (name) => name in parts.headers));
    // On HEAD, node:http sends the headers (Content-Length included) and drops the body itself.
    res.writeHead(parts.status, parts.headers);
    res.end(parts.body);
    logRequest(options.log, { method: req.method!, path: pathOf(req.url!), status: parts.status, context });
  };

  /** The field's root resolver, as GraphQL execution would call it for a document of that one field. */
  const resolve = async (field: GraphQLField<unknown, GraphQLContext>, args: Record<string, unknown>, graphQLContext: GraphQLContext) => {
    if (CONVERSION_FIELDS.has(field.name)) {
      const conversions = field.name === 'batch' ? (args['items'] as unknown[]).length : 1;
      await graphQLContext.requestContext.planConversions([{ responseKey: field.name, conversions }]);
    }
    // A fresh info per call, as graphql-js gives: nothing that keys state by it may see two requests as one.
    const info = { fieldName: field.name, path: { prev: undefined, key: field.name, typename: 'Query' }, returnType: field.type, parentType: options.schema.getQueryType(), schema: options.schema };
    return field.resolve!(undefined, args, graphQLContext, info as never);
  };

  return (req, res) => {
    const target = req.url ?? '';
    if (!PLAIN_TARGET.test(target) || ENCODED_DOT.test(target)) return false;
    const mark = target.indexOf('?');
    const match = matchPath(mark < 0 ? target : target.slice(0, mark));
    // HEAD is a GET whose body is not sent (RFC 9110 9.3.2): same checks, limits and headers.
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const route = match?.routes.find((r) => r.method === method);
    if (!match || !route || route.field === undefined) return false;
    serve(req, res, route, match.params, mark < 0 ? '' : target.slice(mark + 1)).catch((error: unknown) => {
      options.log.error({ err: error }, 'unexpected error in the fast lane');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
      res.end();
    });
    return true;
  };
}

function withParam(error: ApiError, param: string): ApiError {
  return param === error.param ? error : new ApiError(error.code, error.message, { ...error.details, param });
}

function headerText(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}

function pathOf(target: string): string {
  const mark = target.indexOf('?');
  return mark < 0 ? target : target.slice(0, mark);
}

/**
 * Reads a request body as UTF-8 text, refusing it (413) as soon as it passes `limit` bytes. The rest
 * of an oversized body is read and dropped, not left in the socket, so the 413 reaches the client.
 */
function readNodeBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > limit) {
      req.resume();
      reject(tooLarge(limit));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on('data', (chunk: Buffer) => {
      if (refused) return;
      size += chunk.byteLength;
      if (size > limit) {
        refused = true;
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', reject);
    req.on('end', () => {
      if (refused) return;
      try {
        resolve(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks)));
      } catch {
        reject(new ApiError('INVALID_REQUEST', 'The request body is not valid UTF-8.'));
      }
    });
  });
}
