import type { IncomingMessage, ServerResponse } from 'node:http';
import type { YogaServerInstance } from 'graphql-yoga';
import type { GraphQLContext } from '../../graphql/context';
import { readNodeBytes } from '../front/body';
import type { AnswerPlace, Finish } from '../front/finish';
import { directGraphQLMediaType, GRAPHQL_PATH, graphQLAnswer, graphQLGetParamsOf, graphQLParamsOf, type GraphQLMediaType } from './graphql-http';
import type { GraphQLExecutor } from './graphql-executor';
import { graphQLGetAnswer } from './use-graphql-get-caching';
import type { ServerContext, HttpRequestContext } from '../front/request-context';
import { errorCodeOf } from '../front/request-log';
import { routeLabel } from '../routes';
import { headerText, pathOf } from '../front/target';

/** The Yoga server: the Fetch handler of GraphiQL, the account pages and the GraphQL requests the executor declines. */
export type GraphQLYoga = Pick<YogaServerInstance<ServerContext, GraphQLContext>, 'handleRequest' | 'handleNodeRequestAndResponse' | 'fetchAPI'>;

/** A handler of the front: it answers the request through `finish`, the context minted and the time taken by the front. */
export type FrontHandler = (req: IncomingMessage, res: ServerResponse, context: HttpRequestContext, started: number) => void;

export interface YogaAnswerOptions {
  yoga: GraphQLYoga;
  finish: Finish;
  /** The executor of the GraphQL requests the front takes (graphql-executor.ts). */
  execute: GraphQLExecutor;
  /** GRAPHQL_EXECUTION=yoga: every GraphQL request goes to Yoga's own handler, with its plugins (the reference the executor is compared with). */
  yogaExecutes: boolean;
}

/** GraphQL answers stand without their limit headers when the quota cannot be read; they are counted as `graphql`. */
const GRAPHQL_PLACE: AnswerPlace = { label: routeLabel(GRAPHQL_PATH), cors: undefined, standsWithoutLimits: true };

/**
 * GraphQL's answers and Yoga's, finished by the front like every other. A GraphQL request the
 * executor takes (directGraphQLMediaType: a JSON `POST /graphql` of a declared length, a plain
 * `GET /graphql?…`; graphQLParamsOf, graphQLGetParamsOf) is run by the executor and written as
 * Yoga's processRegularResult writes it, a GET with its caching fields (graphQLGetAnswer). Yoga's
 * Fetch handler answers the rest, and the Response it gives is finished the same way: GraphiQL
 * and its assets, the account pages, and the GraphQL requests the executor declines (a streamed
 * Accept, a chunked or oversized body, another content type, HEAD and other methods, a GET with a
 * body or an Accept naming text/html, parameters Yoga refuses in its own words: a missing query,
 * one of the wrong type, JSON it cannot parse).
 */
export function yogaAnswers(options: YogaAnswerOptions): { graphql: FrontHandler; pages: FrontHandler } {
  const { yoga, finish } = options;

  /** Yoga's Response, finished: its bytes, its headers lower-cased, its cookies set apart (a list). */
  const finishResponse = async (req: IncomingMessage, res: ServerResponse, context: HttpRequestContext, started: number, response: Response) => {
    const body = Buffer.from(await response.arrayBuffer());
    const headers: Record<string, string> = {};
    response.headers.forEach((value, given) => {
      // Yoga's Headers keep the case names were set in; the body is sent whole, with its length, so a streamed answer's framing does not apply.
      const name = given.toLowerCase();
      if (name !== 'set-cookie' && name !== 'transfer-encoding') headers[name] = value;
    });
    const cookies = response.headers.getSetCookie();
    if (cookies.length > 0) res.setHeader('set-cookie', cookies);
    if (req.method !== 'HEAD' || headers['content-length'] === undefined) headers['content-length'] = String(body.length);
    // Answers no step coded (a page's refusal, GraphiQL's, a request Yoga could not parse): the code from the body.
    if (context.errorCode === undefined && response.status >= 400) context.errorCode = errorCodeOf(headers['content-type'], body.toString('utf8'));
    await finish.send(req, res, placeOf(req), context, { status: response.status, headers, body }, started);
  };

  const pages: FrontHandler = (req, res, context, started) => {
    const serverContext: ServerContext = { req, requestContext: context };
    Promise.resolve(yoga.handleNodeRequestAndResponse(req, res, serverContext))
      .then((response) => finishResponse(req, res, context, started, response))
      .catch(finish.unexpected(req, res, placeOf(req), context, started));
  };

  const run = async (req: IncomingMessage, res: ServerResponse, context: HttpRequestContext, started: number, mediaType: GraphQLMediaType) => {
    const method = req.method === 'GET' ? 'GET' : 'POST';
    const bytes = method === 'POST' ? await readNodeBytes(req) : undefined;
    const params = bytes === undefined ? graphQLGetParamsOf(req.url!) : graphQLParamsOf(bytes);
    if (params === undefined) {
      // Parameters the executor does not vouch for: Yoga parses and refuses or runs them (a POST from the bytes read).
      if (bytes === undefined) return pages(req, res, context, started);
      const request = new yoga.fetchAPI.Request(`http://${req.headers.host ?? 'localhost'}${GRAPHQL_PATH}`, { method: 'POST', headers: headersOf(req), body: new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.length) });
      const response = await yoga.handleRequest(request, { req, requestContext: context });
      return finishResponse(req, res, context, started, response);
    }
    const { result, cacheControl } = await options.execute({ params, method, context });
    const answer = method === 'GET' ? graphQLGetAnswer(result, mediaType, cacheControl, headerText(req.headers['if-none-match'])) : graphQLAnswer(result, mediaType);
    await finish.send(req, res, GRAPHQL_PLACE, context, answer, started);
  };

  const graphql: FrontHandler = (req, res, context, started) => {
    const mediaType = options.yogaExecutes ? undefined : directGraphQLMediaType(req);
    if (mediaType === undefined) return pages(req, res, context, started);
    finish.entered();
    run(req, res, context, started, mediaType).catch(finish.unexpected(req, res, GRAPHQL_PLACE, context, started));
  };

  return { graphql, pages };
}

/** A page's place: counted by its route label; it stands without limit headers, as GraphQL answers do. */
function placeOf(req: IncomingMessage): AnswerPlace {
  return { label: routeLabel(pathOf(req.url)), cors: undefined, standsWithoutLimits: true };
}

/** node:http's request headers as Fetch headers (a repeated header joined, as HTTP allows). */
function headersOf(req: IncomingMessage): [string, string][] {
  const headers: [string, string][] = [];
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers.push([name, Array.isArray(value) ? value.join(', ') : value]);
  return headers;
}
