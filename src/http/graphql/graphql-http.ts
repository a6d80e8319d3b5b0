import type { IncomingMessage } from 'node:http';
import { GraphQLError, type ExecutionResult } from 'graphql';
import { processRegularResult, type FetchAPI, type GraphQLParams } from 'graphql-yoga';
import { ApiError } from '../../domain/errors';
import { isJsonContentType, notJson, readNodeBody } from '../front/body';
import type { ResponseParts } from '../answer/answer-parts';
import { graphQLErrorOf } from '../answer/errors';
import { DEFAULT_BODY_LIMIT } from '../routes';

/**
 * GraphQL over HTTP as graphql-yoga 5.24.1 speaks it with this project's rules: which media type
 * answers a request (answerMediaType), how a request's parameters are read from its body or its
 * target and which are refused before anything runs (graphQLRequestParams), Yoga's check of the
 * parameters (paramsRefusal), and the answer to a result in each media type (graphQLAnswer,
 * streamedAnswer), with Yoga's words, statuses and framing: copies of graphql-yoga 5.24.1's code,
 * pinned exactly in package.json. test/http/graphql-executor-parity.test.ts and
 * test/http/graphql-post.test.ts hold every answer to the one Yoga's own handler gives, live
 * (test/helpers/graphql-oracle.ts).
 */
export const GRAPHQL_PATH = '/graphql';

export type GraphQLMediaType = 'application/json' | 'application/graphql-response+json';
/** The media types of a single result's answer: a regular JSON answer, or a stream of one event or part. */
export type AnswerMediaType = GraphQLMediaType | 'text/event-stream' | 'multipart/mixed';

/**
 * The result processors Yoga tries, in its order, with their media types: server-sent events,
 * multipart, then the regular JSON answer; for a subscription (an operation that was subscribed
 * to), no multipart.
 */
const PROCESSORS: readonly (readonly AnswerMediaType[])[] = [
  ['text/event-stream'],
  ['multipart/mixed'],
  ['application/graphql-response+json', 'application/json'],
];
const SUBSCRIPTION_PROCESSORS = PROCESSORS.filter((mediaTypes) => !mediaTypes.includes('multipart/mixed'));

/**
 * The media type of the answer for this Accept header. Yoga's own negotiation, step for step
 * (graphql-yoga's getMediaTypesForRequestInOrder and useResultProcessors): white space removed,
 * lower-cased, split at commas, an entry with a charset other than utf-8 dropped, the list
 * reversed, and the last processor media type that matches an entry wins (q-values play no part);
 * when none matches, application/json (RFC 9110 lets a server disregard Accept: no 406).
 */
export function answerMediaType(accept: string | null, subscription = false): AnswerMediaType {
  const asked: string[] = [];
  for (const entry of (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const [mediaType, ...params] = entry.split(';');
    const charset = params.find((param) => param.includes('charset=')) || 'charset=utf-8';
    if (mediaType !== undefined && charset === 'charset=utf-8') asked.push(mediaType);
  }
  asked.reverse();
  let chosen: AnswerMediaType | undefined;
  for (const mediaTypes of subscription ? SUBSCRIPTION_PROCESSORS : PROCESSORS) {
    for (const wanted of asked) {
      for (const mediaType of mediaTypes) if (mediaTypeMatches(mediaType, wanted)) chosen = mediaType;
    }
  }
  return chosen ?? 'application/json';
}

/** graphql-yoga's isMatchingMediaType: `*` matches either half of the asked type, nothing else is a pattern. */
function mediaTypeMatches(offered: string, asked: string): boolean {
  const [offeredType, offeredSubtype] = offered.split('/');
  const [type, subtype] = asked.split('/');
  return (type === '*' || type === offeredType) && (subtype === '*' || subtype === offeredSubtype);
}

/** A request's parameters as sent (not yet checked: paramsRefusal), or why the request is refused before any step runs. */
export type RequestParams = { params: GraphQLParams } | { refusal: GraphQLError };

const invalid = (message: string) => ({ refusal: graphQLErrorOf(new ApiError('INVALID_REQUEST', message), { http: true }) });

/**
 * The parameters of a request to /graphql, read as Yoga reads them, or its refusal:
 *
 * - a method other than GET and POST: 405 with Allow (HEAD included; GraphiQL's page is not here);
 * - GET: from the target's query string, fragment included (Yoga's parseGETRequest on its URL): the
 *   first of each name, an empty one as absent, `variables` and `extensions` as JSON (400 when it
 *   does not parse); a body is not read;
 * - POST: a JSON content type, whatever its case (415 otherwise: no form, multipart or
 *   application/graphql bodies), a body within the body limit whether its length is declared or
 *   chunked (413), UTF-8 (400), JSON (400), an object (400; an array is a batch, which is refused).
 */
export async function graphQLRequestParams(req: IncomingMessage): Promise<RequestParams> {
  if (req.method === 'GET') return getParams(req.url!);
  if (req.method !== 'POST') {
    const error = new GraphQLError('GraphQL only supports GET and POST requests.', {
      extensions: { http: { status: 405, headers: { Allow: 'GET, POST' } }, code: 'BAD_REQUEST' },
    });
    return { refusal: error };
  }
  if (!isJsonContentType(req.headers['content-type'] ?? null)) return { refusal: graphQLErrorOf(notJson(), { http: true }) };
  let text: string;
  try {
    text = await readNodeBody(req, DEFAULT_BODY_LIMIT);
  } catch (error) {
    if (error instanceof ApiError) return { refusal: graphQLErrorOf(error, { http: true }) };
    return invalid('POST body sent invalid JSON.');
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return invalid('POST body sent invalid JSON.');
  }
  if (typeof body !== 'object' || body === null) return invalid('The POST body must be a JSON object.');
  if (Array.isArray(body))
    return { refusal: new GraphQLError('Batching is not supported.', { extensions: { http: { status: 400 }, code: 'BAD_REQUEST' } }) };
  return { params: body as GraphQLParams };
}

function getParams(target: string): RequestParams {
  const search = new URLSearchParams(target.slice(target.indexOf('?') + 1));
  try {
    const json = (name: string): unknown => {
      const text = search.get(name) || undefined;
      return text === undefined ? undefined : JSON.parse(text);
    };
    const params = {
      operationName: search.get('operationName') || undefined,
      query: search.get('query') || undefined,
      variables: json('variables'),
      extensions: json('extensions'),
    };
    return { params: params as GraphQLParams };
  } catch {
    return invalid('The variables and extensions parameters must be JSON objects.');
  }
}

const PARAM_NAMES = new Set(['query', 'variables', 'operationName', 'extensions']);
const ALLOW = { Allow: 'GET, POST' };

/**
 * Yoga's check of a request's parameters (useCheckGraphQLQueryParams), in its words and order: no
 * member but the four (a null one is absent), a query present and a string, `variables` and
 * `extensions` objects or absent. The error, or undefined. `operationName` is not checked: one
 * that names no operation is refused when the operation is resolved.
 */
export function paramsRefusal(given: GraphQLParams): GraphQLError | undefined {
  const params = given as Readonly<Record<string, unknown>>;
  for (const name in params) {
    if (params[name] != null && !PARAM_NAMES.has(name)) {
      return new GraphQLError(`Unexpected parameter "${name}" in the request body.`, {
        extensions: { http: { status: 400 }, code: 'BAD_REQUEST' },
      });
    }
  }
  if (params['query'] == null)
    return new GraphQLError('Must provide query string.', {
      extensions: { http: { spec: true, status: 400, headers: ALLOW }, code: 'BAD_REQUEST' },
    });
  const wrong = (name: string, expected: string, given: string) =>
    new GraphQLError(`Expected "${name}" param to be ${expected}, but given ${given}.`, {
      extensions: { http: { status: 400, headers: ALLOW }, code: 'BAD_REQUEST' },
    });
  if (typeof params['query'] !== 'string') return wrong('query', 'a string', typeOf(params['query']));
  for (const name of ['variables', 'extensions']) {
    const type = typeOf(params[name]);
    if (type !== 'object' && type !== 'null' && type !== 'undefined') return wrong(name, 'empty or an object', type);
  }
  return undefined;
}

/** graphql-yoga's extendedTypeof: null and arrays named apart. */
function typeOf(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

/** Yoga's Response constructor, as the result processor calls it: the answer's parts, kept as given. */
class CapturedResponse {
  constructor(
    readonly body: string | null,
    readonly init: { status: number; headers: Record<string, string> },
  ) {}
}
const CAPTURE = { Response: CapturedResponse } as unknown as FetchAPI;

/**
 * Yoga's answer to a single result, by Yoga's own processRegularResult: the status (the GraphQL over
 * HTTP rules for `application/json` and `application/graphql-response+json`), the headers its errors
 * name, and the body without internals. Header names lower-cased, as the finish writes them.
 */
export function graphQLAnswer(result: ExecutionResult, mediaType: GraphQLMediaType): ResponseParts & { body: string } {
  const answer = processRegularResult(result, CAPTURE, mediaType) as unknown as CapturedResponse;
  const body = answer.body ?? '';
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(answer.init.headers)) headers[name.toLowerCase()] = value;
  headers['content-length'] = String(Buffer.byteLength(body));
  return { status: answer.init.status, headers, body };
}

/**
 * A single result streamed as Yoga's SSE and multipart processors write it, whole: the status and
 * headers its errors name (as under `application/json` for server-sent events, whose `spec` errors
 * keep 200, and as under `application/graphql-response+json` for multipart), the processor's own
 * headers, and its framing of one result: a ping, one `next` event and `complete`; or the
 * boundary, one part with its type and length, and the closing boundary.
 */
export function streamedAnswer(
  result: ExecutionResult,
  mediaType: 'text/event-stream' | 'multipart/mixed',
): ResponseParts & { body: string } {
  const sse = mediaType === 'text/event-stream';
  const regular = graphQLAnswer(result, sse ? 'application/json' : 'application/graphql-response+json');
  const { 'content-type': _type, 'content-length': _length, ...named } = regular.headers;
  const json = regular.body;
  const own: Record<string, string> = sse
    ? { 'content-type': 'text/event-stream', connection: 'keep-alive', 'cache-control': 'no-cache', 'content-encoding': 'none' }
    : { connection: 'keep-alive', 'content-type': 'multipart/mixed; boundary="-"' };
  const body = sse
    ? `:\n\nevent: next\ndata: ${json}\n\nevent: complete\ndata:\n\n`
    : `\r\n---\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}\r\n-----\r\n`;
  const headers = { ...own, ...named, 'content-length': String(Buffer.byteLength(body)) };
  return { status: regular.status, headers, body };
}
