import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ExecutionResult } from 'graphql';
import type { HttpRequestContext } from '../front/request-context';
import type { ResponseParts } from '../answer/answer-parts';
import type { AnswerPlace, Finish } from '../front/finish';
import { headerText } from '../front/target';
import { routeLabel } from '../routes';
import { SHARED_CORS_HEADERS } from '../answer/shared-resource';
import type { GraphQLExecutor } from './graphql-executor';
import { graphQLGetAnswer, isCacheable, withoutRequestCounters } from './graphql-get-cache';
import { answerMediaType, GRAPHQL_PATH, graphQLAnswer, graphQLRequestParams, streamedAnswer, type AnswerMediaType } from './graphql-http';
import type { FrontHandler } from './yoga-answers';

export interface GraphQLAnswerOptions {
  finish: Finish;
  /** The executor of GraphQL requests (graphql-executor.ts). */
  execute: GraphQLExecutor;
  /** GraphiQL's page and the other pages (Yoga's adapter, yoga-answers.ts). */
  pages: FrontHandler;
  /** GRAPHIQL: a browser's GET /graphql is GraphiQL's page. */
  graphiql: boolean;
}

/**
 * GraphQL answers stand without their limit headers when the quota cannot be read; they are counted
 * as `graphql`; any origin may read them (a browser page cannot send a key: see graphQLPreflightParts).
 */
export const GRAPHQL_PLACE: AnswerPlace = { label: routeLabel(GRAPHQL_PATH), cors: SHARED_CORS_HEADERS, standsWithoutLimits: true };
const WANTS_HTML = /\btext\/html\b/i;

/**
 * Every request to /graphql, answered by the front: its parameters read from its target or its body
 * (graphQLRequestParams, which refuses other methods, other content types, bodies past the limit
 * and JSON that is not an object), run by the executor (a refusal only coded and costed), and
 * written in the media type its Accept header chooses (answerMediaType): the regular JSON answer,
 * a GET's with its caching fields (graphQLGetAnswer), or one result streamed as server-sent events
 * or multipart (streamedAnswer). A GET or HEAD whose Accept names text/html is GraphiQL's page,
 * served by Yoga's adapter (`pages`); with GraphiQL off, such a GET with a query runs it.
 */
export function graphQLAnswers(options: GraphQLAnswerOptions): FrontHandler {
  const { finish, execute } = options;

  const run = async (req: IncomingMessage, res: ServerResponse, context: HttpRequestContext, started: number) => {
    const method = req.method === 'GET' ? 'GET' : 'POST';
    const read = await graphQLRequestParams(req);
    const { result, cacheControl, subscription } =
      'refusal' in read
        ? await execute({ params: {}, method, context, refusal: read.refusal })
        : await execute({ params: read.params, method, context });
    const answer = answerOf(req, result, answerMediaType(headerText(req.headers.accept), subscription), cacheControl);
    await finish.send(req, res, GRAPHQL_PLACE, context, answer, started);
  };

  return (req, res, context, started) => {
    if ((req.method === 'GET' || req.method === 'HEAD') && isPageRequest(req, options.graphiql))
      return options.pages(req, res, context, started);
    finish.entered();
    run(req, res, context, started).catch(finish.unexpected(req, res, GRAPHQL_PLACE, context, started));
  };
}

/** A browser's request for GraphiQL's page: an Accept naming text/html (with GraphiQL off, only one without a query, which the page's 404 answers). */
function isPageRequest(req: IncomingMessage, graphiql: boolean): boolean {
  const accept = headerText(req.headers.accept);
  if (accept === null || !WANTS_HTML.test(accept)) return false;
  if (graphiql) return true;
  const target = req.url!;
  const search = target.includes('?') ? target.slice(target.indexOf('?') + 1).split('#', 1)[0]! : '';
  return !new URLSearchParams(search).has('query');
}

/**
 * The answer to a result in its media type. A GET's result whose document is cacheable and which has
 * no errors leaves the request's counters out of its body in every media type; its JSON answer gets
 * the caching fields (graphQLGetAnswer). A HEAD is refused like other methods, without caching fields.
 */
function answerOf(
  req: IncomingMessage,
  result: ExecutionResult,
  mediaType: AnswerMediaType,
  cacheControl: string | undefined,
): ResponseParts {
  const get = req.method === 'GET';
  if (mediaType === 'text/event-stream' || mediaType === 'multipart/mixed') {
    const cacheable = get && isCacheable(result, cacheControl);
    return streamedAnswer(cacheable ? withoutRequestCounters(result) : result, mediaType);
  }
  return get
    ? graphQLGetAnswer(result, mediaType, cacheControl, headerText(req.headers['if-none-match']))
    : graphQLAnswer(result, mediaType);
}
