import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Plugin, YogaServerInstance } from 'graphql-yoga';
import { ApiError } from '../../domain/errors';
import { restErrorResponse } from '../answer/errors';
import type { GraphQLContext } from '../../graphql/context';
import type { HttpRequestContext } from '../front/request-context';
import type { AnswerPlace, Finish } from '../front/finish';
import { requestContextOf, type ServerContext } from '../front/request-context';
import { routeLabel } from '../routes';
import { SHARED_CORS_HEADERS } from '../answer/shared-resource';
import { GRAPHQL_PATH } from './graphql-http';
import { pathOf } from '../front/target';

/** The Yoga server: the Fetch handler of GraphiQL and its assets, the account pages and the front door. */
export type GraphQLYoga = Pick<YogaServerInstance<ServerContext, GraphQLContext>, 'handleRequest' | 'handleNodeRequestAndResponse'>;

/** A handler of the front: it answers the request through `finish`, the context minted and the time taken by the front. */
export type FrontHandler = (req: IncomingMessage, res: ServerResponse, context: HttpRequestContext, started: number) => void;

/**
 * The pages Yoga's adapter serves (GraphiQL and its assets, the account pages, the front door),
 * finished by the front like every other answer: Yoga's Response is read whole and sent through
 * `finish` with its status, its headers lower-cased and its cookies.
 */
export function yogaPages(options: { yoga: GraphQLYoga; finish: Finish }): FrontHandler {
  const { yoga, finish } = options;

  /** Yoga's Response, finished: its bytes, its headers lower-cased, its cookies set apart (a list). */
  const finishResponse = async (
    req: IncomingMessage,
    res: ServerResponse,
    context: HttpRequestContext,
    started: number,
    response: Response,
  ) => {
    const body = Buffer.from(await response.arrayBuffer());
    const headers: Record<string, string> = {};
    response.headers.forEach((value, given) => {
      // Yoga's Headers keep the case names were set in; the body is sent whole, with its length.
      const name = given.toLowerCase();
      if (name !== 'set-cookie' && name !== 'transfer-encoding') headers[name] = value;
    });
    const cookies = response.headers.getSetCookie();
    if (cookies.length > 0) res.setHeader('set-cookie', cookies);
    if (req.method !== 'HEAD' || headers['content-length'] === undefined) headers['content-length'] = String(body.length);
    await finish.send(req, res, placeOf(req), context, { status: response.status, headers, body }, started);
  };

  const pages: FrontHandler = (req, res, context, started) => {
    const serverContext: ServerContext = { req, requestContext: context };
    Promise.resolve(yoga.handleNodeRequestAndResponse(req, res, serverContext))
      .then((response) => finishResponse(req, res, context, started, response))
      .catch(finish.unexpected(req, res, placeOf(req), context, started));
  };

  return pages;
}

/** A page's place: counted by its route label; it stands without limit headers, as GraphQL answers do; at /graphql (GraphiQL's page), any origin may read it, as GraphQL's answers. */
function placeOf(req: IncomingMessage): AnswerPlace {
  const pathname = pathOf(req.url);
  return {
    label: routeLabel(pathname),
    cors: pathname === GRAPHQL_PATH ? SHARED_CORS_HEADERS : undefined,
    standsWithoutLimits: true,
  };
}

/**
 * Yoga's last plugin: a request no page plugin (nor SOFA's execution) answered is the contract's
 * 404, so Yoga's adapter never runs a GraphQL request itself. Yoga reads its URL from the target
 * and the Host header, where the front reads the target alone: a target URL parsing reads as
 * another path (`//graphql` is the path `/` of host `graphql`) or a Host such as `x/graphql?`
 * makes a URL ending in /graphql, which Yoga would run without the front's body limit, document
 * limits and rate limits.
 */
export function useNoGraphQLOverYoga(): Plugin {
  return {
    onRequest({ serverContext, endResponse }) {
      const context = requestContextOf(serverContext);
      const error = new ApiError('NOT_FOUND', 'There is no page at this address. See GET /openapi.json.');
      context.errorCode = error.code;
      endResponse(restErrorResponse(error, context.requestId));
    },
  };
}
