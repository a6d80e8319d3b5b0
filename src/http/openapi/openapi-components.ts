import { COMPLETE_CACHE_CONTROL } from '../answer/answer-formats';
import { ERROR_CODES, ERROR_STATUS, type ErrorCode } from '../../domain/errors';
import { variesOnAccept, type RestRoute } from '../routes';

type Json = Record<string, unknown>;

const REASONS: Record<number, string> = {
  400: 'The request is invalid.',
  401: 'No API key, or a malformed, unknown, revoked or other-environment key (UNAUTHORIZED), or a key past its expiry or its grace after a rotation (KEY_EXPIRED).',
  403: 'The plan does not include this feature.',
  404: 'Unknown route, or unknown resource in the path.',
  405: 'Known path, wrong method; see the Allow header.',
  408: 'The request line and headers did not arrive in time.',
  413: 'The body is too large.',
  414: 'The request target is too long.',
  415: 'The body is not application/json.',
  429: 'Too many requests, or the monthly quota is used up; see Retry-After.',
  431: 'The request line and headers together are larger than the server accepts (16 KiB).',
  500: 'An unexpected error, logged with the requestId.',
  503: 'Currency rates are not loaded yet, or the account database is unreachable (keyed routes); see Retry-After.',
};

/** On every answer. */
export const REQUEST_ID_HEADER: Json = { $ref: '#/components/headers/X-Request-Id' };

/** The request rate limit's fields (rate-limit.ts), on every answer of a request that spent one: its limit was checked. */
export const RATE_LIMIT_HEADERS: Record<string, Json> = {
  RateLimit: { $ref: '#/components/headers/RateLimit' },
  'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' },
};

/** Refusals that come before the rate limit is spent (order of checks: body, key, then the limit): no RateLimit fields. */
const BEFORE_THE_LIMIT = new Set([401, 413, 415]);

const HEADERS_BY_STATUS: Record<number, Record<string, Json>> = {
  401: { 'WWW-Authenticate': { $ref: '#/components/headers/WWW-Authenticate' } },
  429: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
  503: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
};

/** Refusals of the HTTP parser, before any route is known: every operation can meet them. */
const TRANSPORT_STATUSES: readonly number[] = (['REQUEST_TIMEOUT', 'URI_TOO_LONG', 'HEADERS_TOO_LARGE'] as const)
  .filter((code) => code in ERROR_STATUS)
  .map((code) => (ERROR_STATUS as Record<string, number>)[code]!);

/**
 * The statuses a route can fail with, derived from what it is (method, access, path parameters).
 * Never 405: an operation's own method is allowed; other methods are described on the path.
 */
function errorStatusesOf(route: RestRoute): number[] {
  const statuses = new Set([400, 429, 500, ...TRANSPORT_STATUSES]);
  if (route.path.includes(':')) statuses.add(404);
  if (route.access === 'key') statuses.add(401);
  if (route.method === 'POST') [413, 415].forEach((s) => statuses.add(s));
  // Currency routes need the rates; keyed routes need the account database.
  if (route.tag === 'Currency' || route.access === 'key') statuses.add(503);
  // A date (the Developer plan's) and the rates of a day: the currency routes', and a unit
  // conversion's whose expressions name currencies (a batch answers those per item, with 200).
  const takesDates = route.tag === 'Currency' || route.field === 'convert' || route.field === 'convertPost';
  if (takesDates && route.access === 'key') [403, 404].forEach((s) => statuses.add(s));
  return [...statuses].sort((a, b) => a - b);
}

export function errorResponsesOf(route: RestRoute): Record<string, Json> {
  const responses: Record<string, Json> = {};
  if (route.cache === 'complete-answer') {
    responses['304'] = {
      description: `Not Modified: the answer is complete (it ends before the next expected ECB publication) and an entity tag sent in If-None-Match matches its ETag (of the media type asked for). No body.`,
      headers: {
        ETag: ETAG_HEADER,
        'Cache-Control': { required: true, schema: { type: 'string', const: COMPLETE_CACHE_CONTROL } },
        ...(variesOnAccept(route) ? { Vary: VARY_ACCEPT_HEADER } : {}),
        'X-Request-Id': REQUEST_ID_HEADER,
        ...RATE_LIMIT_HEADERS,
        ...QUOTA_HEADERS(false),
      },
    };
  } else if (route.etag) {
    responses['304'] = {
      description:
        'Not Modified: an entity tag sent in If-None-Match (a list, weak W/ forms and `*` included) matches the current ETag. No body.',
      headers: {
        ETag: ETAG_HEADER,
        'Cache-Control': { required: true, schema: { type: 'string', pattern: '^public, max-age=\\d+$' } },
        ...(route.shared ? { 'Access-Control-Allow-Origin': { required: true, schema: { type: 'string', const: '*' } } } : {}),
        'X-Request-Id': REQUEST_ID_HEADER,
        ...RATE_LIMIT_HEADERS,
      },
    };
  }
  for (const status of errorStatusesOf(route)) {
    const codes = ERROR_CODES.filter((code) => ERROR_STATUS[code] === status && answers(route, code));
    responses[String(status)] = errorResponse(codes, (codes.some(isLinkCode) ? LINK_REASONS[status] : undefined) ?? REASONS[status], {
      ...HEADERS_BY_STATUS[status],
      ...(BEFORE_THE_LIMIT.has(status) ? {} : RATE_LIMIT_HEADERS),
      ...(route.access === 'key' && status !== 401 ? QUOTA_HEADERS(false) : {}),
    });
  }
  return responses;
}

/** An error answer with these codes (all of one status): its reason, the request id and `headers`, and the error body. */
function errorResponse(codes: ErrorCode[], reason: string | undefined, headers: Record<string, Json> = {}): Json {
  return {
    description: `${reason ?? 'Error.'} Codes: ${codes.join(', ')}.`,
    headers: { 'X-Request-Id': REQUEST_ID_HEADER, ...headers },
    content: { 'application/json': { schema: errorSchema(codes) } },
  };
}

const isLinkCode = (code: ErrorCode): boolean => code === 'LINK_INVALID' || code === 'LINK_EXPIRED';

/**
 * Whether a /v1 route can answer a code: FORBIDDEN is the account page's (a refused form post),
 * PERSISTED_QUERY_NOT_FOUND GraphQL's, and only a signed link's route opens signed links.
 */
function answers(route: RestRoute, code: ErrorCode): boolean {
  if (code === 'FORBIDDEN' || code === 'PERSISTED_QUERY_NOT_FOUND') return false;
  return !isLinkCode(code) || route.signedLink === true;
}

/** The reasons of a route opened by signed links too. */
const LINK_REASONS: Record<number, string> = {
  401: `${REASONS[401]!} A signed link whose key was revoked or has ended answers the same.`,
  403: 'The plan does not include this feature (PLAN_REQUIRED), or a signed link was changed (LINK_INVALID) or has expired (LINK_EXPIRED).',
};

/**
 * The error body with the codes of one status. Each narrowing sits beside the schema it narrows
 * (`allOf` at the same level), so that a validator that closes every object (Redocly's example
 * check: unevaluatedProperties) still sees the members that schema declares.
 */
function errorSchema(codes: ErrorCode[]): Json {
  return {
    allOf: [{ $ref: '#/components/schemas/ErrorResponse' }],
    properties: { error: { allOf: [{ $ref: '#/components/schemas/ErrorBody' }], properties: { code: { enum: codes } } } },
  };
}

/** The headers of an answer that gives names in a language (content-language.ts): the languages used, and Vary. */
export const LANGUAGE_HEADERS: Json = {
  'Content-Language': {
    description:
      'The languages the names of this answer are in (RFC 9110 8.5): the one chosen by `lang`, else Accept-Language, else English.',
    required: false,
    schema: { type: 'string', pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*(, [A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*)*$' },
  },
  Vary: {
    description: 'Names follow Accept-Language when no `lang` is given; the coding follows Accept-Encoding.',
    required: false,
    schema: { type: 'string', pattern: '(^|, )(Accept-Language(, Accept-Encoding)?|Accept-Encoding)$' },
  },
};

/** `Vary: Accept` of a route that negotiates its media type: a cache keeps one answer per format. */
export const VARY_ACCEPT_HEADER: Json = {
  description: 'The answer depends on the Accept header (JSON, CSV or NDJSON), and its coding on Accept-Encoding.',
  required: true,
  schema: { type: 'string', pattern: '^Accept(, Accept-Encoding)?$' },
};

/** `Vary` of an answer that varies on its coding alone (every JSON answer, unless COMPRESSION=off). */
export const VARY_ENCODING_HEADER: Json = {
  description: 'The coding follows Accept-Encoding.',
  required: false,
  schema: { type: 'string', const: 'Accept-Encoding' },
};

/** The strong validator of a route with `etag`: the same for the same bytes, in every instance. */
export const ETAG_HEADER: Json = {
  description:
    'A strong validator of the exact body bytes (a compressed body has its own: `-br` or `-gzip` inside the quotes); send it back in If-None-Match to get 304 Not Modified.',
  required: true,
  schema: { type: 'string', pattern: '^"[A-Za-z0-9_-]+"$' },
};

/**
 * The monthly quota of the key's account and the key's end, sent once the key is known. The
 * components say so; a success answer, where the key always is, declares the quota fields required
 * in place (a reference cannot change `required`).
 */
export const QUOTA_HEADERS = (required: boolean): Record<string, Json> => ({
  ...Object.fromEntries(
    Object.entries(QUOTA_HEADER_TEXT).map(([name, description]) => [
      name,
      required ? { description, required: true, schema: QUOTA_HEADER_SCHEMA } : { $ref: `#/components/headers/${name}` },
    ]),
  ),
  'Key-Expires': { $ref: '#/components/headers/Key-Expires' },
});

const QUOTA_HEADER_TEXT: Record<string, string> = {
  'X-Quota-Limit': "Conversions the account's plan allows this month.",
  'X-Quota-Remaining': 'Conversions left this month, after this request.',
  'X-Quota-Reset': 'Seconds until the quota resets (00:00 UTC on the 1st).',
};

const QUOTA_HEADER_SCHEMA: Json = { type: 'string', pattern: '^\\d+$' };

function quotaHeaderComponents(): Record<string, Json> {
  const components: Record<string, Json> = {};
  for (const [name, description] of Object.entries(QUOTA_HEADER_TEXT)) {
    components[name] = { description: `${description} Sent once the key was authenticated.`, schema: QUOTA_HEADER_SCHEMA };
  }
  // Sent only to a key that has an end: its expiry, or the end of its grace after a rotation.
  components['Key-Expires'] = {
    description: 'When the API key used stops working (an HTTP-date); absent for a key without an end. After it: 401 KEY_EXPIRED.',
    schema: { type: 'string' },
  };
  return components;
}

export const OPENAPI_COMPONENTS: Json = {
  securitySchemes: {
    bearerAuth: {
      type: 'http',
      scheme: 'bearer',
      description: 'An API key: `msr_live_…` in production, `msr_test_…` in development. Never in a query string.',
    },
  },
  headers: {
    'X-Request-Id': { description: 'Identifies this request in the logs.', required: true, schema: { type: 'string' } },
    'Retry-After': { description: 'Seconds to wait before retrying.', required: true, schema: { type: 'string', pattern: '^\\d+$' } },
    Allow: { description: 'The methods the path accepts.', required: true, schema: { type: 'string' } },
    'WWW-Authenticate': { description: 'The Bearer challenge.', required: true, schema: { type: 'string' } },
    RateLimit: {
      description:
        'The request rate limit after this request (draft-ietf-httpapi-ratelimit-headers, a Structured Field): `"per-key";r=49;t=1` (49 requests left, the window resets in 1 s), or `"per-ip";r=…;t=…` on a public route without a key. Sent once the request spent its limit.',
      schema: { type: 'string', pattern: '^"[a-z-]+";r=\\d+;t=\\d+$' },
    },
    'RateLimit-Policy': {
      description:
        'The request rate limit that applies: `"per-key";q=50;w=1` (50 requests a second per key) or `"per-ip";q=60;w=60` (60 a minute per client IP). Sent with RateLimit.',
      schema: { type: 'string', pattern: '^"[a-z-]+";q=\\d+;w=\\d+$' },
    },
    'Content-Encoding': {
      description:
        'The coding of the body: Brotli or gzip, as Accept-Encoding asks, when the answer is at least 1 KiB (HEAD: what the GET would be sent in). Absent: as is. An encoded answer has a validator of its own (the ETag with `-br` or `-gzip`).',
      required: false,
      schema: { type: 'string', enum: ['br', 'gzip'] },
    },
    ...quotaHeaderComponents(),
  },
  schemas: {
    ErrorResponse: {
      type: 'object',
      required: ['error'],
      additionalProperties: false,
      properties: {
        error: { $ref: '#/components/schemas/ErrorBody' },
      },
    },
  },
};
