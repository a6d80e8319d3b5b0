import type { IncomingMessage } from 'node:http';
import type { ExecutionResult } from 'graphql';
import { processRegularResult, type FetchAPI, type GraphQLParams } from 'graphql-yoga';
import { isJsonContentType, utf8Text } from '../front/body';
import type { ResponseParts } from '../answer/answer-parts';
import { DEFAULT_BODY_LIMIT } from '../routes';
import { headerText } from '../front/target';
import { documentTextRefusal } from './use-graphql-limits';

/**
 * What the front needs to answer GraphQL requests (POST and GET) as Yoga does: which requests the
 * executor (graphql-executor.ts) may take from their headers alone, which parameters it may run,
 * and Yoga's own answer for a result. Whatever these functions do not vouch for goes to Yoga
 * itself, which then refuses or answers it in its own words.
 *
 * The Accept negotiation, the parameter checks and the Response capture below copy Yoga's internals:
 * graphql-yoga 5.24.1 is pinned exactly in package.json, and test/http/graphql-post.test.ts and
 * test/http/graphql-executor-parity.test.ts (the same requests to the executor and to Yoga's own
 * handler, GRAPHQL_EXECUTION=yoga, every answer compared) fail when they change.
 */
export const GRAPHQL_PATH = '/graphql';

export type GraphQLMediaType = 'application/json' | 'application/graphql-response+json';

/**
 * The result processors Yoga's useResultProcessors tries, in its order, with their media types:
 * server-sent events, multipart, then the regular JSON answer.
 */
const PROCESSORS: readonly (readonly [kind: 'stream' | 'regular', mediaTypes: readonly string[]])[] = [
  ['stream', ['text/event-stream']],
  ['stream', ['multipart/mixed']],
  ['regular', ['application/graphql-response+json', 'application/json']],
];

/**
 * The media type of Yoga's answer to a single result for this Accept header, or undefined when Yoga
 * would stream it (server-sent events, multipart). Yoga's own negotiation, step for step
 * (graphql-yoga's getMediaTypesForRequestInOrder and useResultProcessors): white space removed,
 * lower-cased, split at commas, an entry with a charset other than utf-8 dropped, the list
 * reversed, and the last processor media type that matches an entry wins (q-values play no part);
 * when none matches, useJsonMediaTypes answers application/json. A copy of graphql-yoga 5.24.1's code
 * (pinned; test/http/graphql-post.test.ts sends clients' Accept headers and near misses to both).
 */
export function answerMediaType(accept: string | null): GraphQLMediaType | undefined {
  const asked: string[] = [];
  for (const entry of (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const [mediaType, ...params] = entry.split(';');
    const charset = params.find((param) => param.includes('charset=')) || 'charset=utf-8';
    if (mediaType !== undefined && charset === 'charset=utf-8') asked.push(mediaType);
  }
  asked.reverse();
  let chosen: { kind: 'stream' | 'regular'; mediaType: string } | undefined;
  for (const [kind, mediaTypes] of PROCESSORS) {
    for (const wanted of asked) {
      for (const mediaType of mediaTypes) if (mediaTypeMatches(mediaType, wanted)) chosen = { kind, mediaType };
    }
  }
  if (chosen === undefined) return 'application/json';
  return chosen.kind === 'regular' ? (chosen.mediaType as GraphQLMediaType) : undefined;
}

/** graphql-yoga's isMatchingMediaType: `*` matches either half of the asked type, nothing else is a pattern. */
function mediaTypeMatches(offered: string, asked: string): boolean {
  const [offeredType, offeredSubtype] = offered.split('/');
  const [type, subtype] = asked.split('/');
  return (type === '*' || type === offeredType) && (subtype === '*' || subtype === offeredSubtype);
}

const DECIMAL_LENGTH = /^[1-9]\d{0,8}$/;
/** A target the executor reads as Yoga would read its URL: printable ASCII without a fragment. */
const PLAIN_GET_TARGET = /^\/graphql\?[\x21-\x22\x24-\x7e]*$/;
const WANTS_HTML = /\btext\/html\b/i;

/**
 * The media type of the answer when the executor may take this request, decided before its body is
 * read (a body once read is handed to Yoga only as bytes); undefined for the requests left to Yoga,
 * which refuses or answers them in its own words:
 *
 * - `POST /graphql` exactly, with a JSON content type (useJsonMediaTypes's rule) and a declared
 *   non-empty length within the body limit: a chunked or oversized body (and its 413), another
 *   content type (its 415), a query string on a POST stay Yoga's;
 * - `GET /graphql?…` whose target is printable ASCII without `#`, with no body (no length, no
 *   transfer coding), and whose Accept does not name text/html (GraphiQL's page is Yoga's);
 * - in both, an Accept that Yoga answers with JSON (answerMediaType): a streamed answer
 *   (text/event-stream, multipart/mixed) is Yoga's. HEAD and every other method are Yoga's (405).
 */
export function directGraphQLMediaType(req: IncomingMessage): GraphQLMediaType | undefined {
  const headers = req.headers;
  if (req.method === 'GET') {
    if (req.url === undefined || !PLAIN_GET_TARGET.test(req.url)) return undefined;
    if (headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined) return undefined;
    const accept = headerText(headers.accept);
    if (accept !== null && WANTS_HTML.test(accept)) return undefined;
    return answerMediaType(accept);
  }
  if (req.url !== GRAPHQL_PATH || req.method !== 'POST') return undefined;
  const length = headers['content-length'];
  if (length === undefined || headers['transfer-encoding'] !== undefined) return undefined;
  if (!DECIMAL_LENGTH.test(length) || Number(length) > DEFAULT_BODY_LIMIT) return undefined;
  if (!isJsonContentType(headers['content-type'] ?? null)) return undefined;
  return answerMediaType(headerText(headers.accept));
}

const PARAM_NAMES = new Set(['query', 'variables', 'operationName', 'extensions']);

/**
 * The request's GraphQL parameters when the executor takes them as Yoga would run them: the body is
 * UTF-8 JSON (as useJsonMediaTypes reads it), an object whose non-null members are only the four
 * parameters (Yoga's useCheckGraphQLQueryParams). Undefined for anything else (checkedParams).
 */
export function graphQLParamsOf(bytes: Buffer): GraphQLParams | undefined {
  let body: unknown;
  try {
    body = JSON.parse(utf8Text([bytes]));
  } catch {
    return undefined;
  }
  if (!isPlainObject(body)) return undefined;
  for (const name in body) if (body[name] != null && !PARAM_NAMES.has(name)) return undefined;
  return checkedParams(body);
}

/**
 * A GET's GraphQL parameters, read from its target as Yoga's parseGETRequest reads them (the first
 * of each name, an empty one as absent, `variables` and `extensions` as JSON): undefined when
 * Yoga would refuse them (JSON it cannot parse, checkedParams).
 */
export function graphQLGetParamsOf(target: string): GraphQLParams | undefined {
  const search = new URLSearchParams(target.slice(target.indexOf('?') + 1));
  const json = (name: string): unknown => {
    const text = search.get(name) || undefined;
    return text === undefined ? undefined : JSON.parse(text);
  };
  try {
    return checkedParams({ query: search.get('query') || undefined, operationName: search.get('operationName') || undefined, variables: json('variables'), extensions: json('extensions') });
  } catch {
    return undefined;
  }
}

/**
 * The parameters the executor runs: `query` a string within the document limits (useGraphQLLimits),
 * or absent beside a persisted-query extension (a hash alone); `variables` and `extensions` objects
 * or absent; `operationName` a string or absent. Undefined otherwise: Yoga answers those (a
 * missing query, a parameter of the wrong type) in its own words.
 */
function checkedParams(body: Record<string, unknown>): GraphQLParams | undefined {
  const { query, variables, extensions, operationName } = body;
  if (!(variables == null || isPlainObject(variables)) || !(extensions == null || isPlainObject(extensions))) return undefined;
  if (operationName != null && typeof operationName !== 'string') return undefined;
  if (query == null) return extensions?.['persistedQuery'] != null ? (body as GraphQLParams) : undefined;
  if (typeof query !== 'string' || documentTextRefusal(query) !== undefined) return undefined;
  return body as GraphQLParams;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
