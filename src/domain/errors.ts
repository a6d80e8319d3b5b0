import type { RateLimitState } from './rate-limit';

/**
 * The one error table: every error code the API can answer with, and its HTTP status. The status is
 * part of the contract's error object (REST bodies, batch items, GraphQL `extensions.status`), so it
 * is fixed here with the code; REST renders `{"error": {...}}` with it. Nothing else in the code base
 * decides a status. Headers and route hints are the edge's (see ApiErrorDetails).
 */
export const ERROR_STATUS = {
  INVALID_REQUEST: 400,
  UNAUTHORIZED: 401,
  /** The key was valid and has reached its end (its expiry, or the end of its grace after a rotation). */
  KEY_EXPIRED: 401,
  PLAN_REQUIRED: 403,
  FORBIDDEN: 403,
  /** A signed link whose signature does not match its parameters (changed, added, removed), or that lacks one of its own. */
  LINK_INVALID: 403,
  /** A signed link past its expiry. */
  LINK_EXPIRED: 403,
  NOT_FOUND: 404,
  /** A persisted document's hash that no store holds: the client sends the document with its hash (Apollo's APQ). */
  PERSISTED_QUERY_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  /** node:http gave up waiting for the request's headers (headersTimeout/requestTimeout). */
  REQUEST_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  /** The request line and headers together are over node:http's limit (16 KiB by default). */
  HEADERS_TOO_LARGE: 431,
  UNKNOWN_UNIT: 400,
  INCOMPATIBLE_UNITS: 400,
  UNKNOWN_CURRENCY: 400,
  RATE_NOT_FOUND: 404,
  QUOTA_EXCEEDED: 429,
  RATE_LIMIT_EXCEEDED: 429,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** A listing that helps the caller on from an error; the edge names its route (REST) or field (GraphQL) after the message. */
export type SeeAlso = 'units' | 'categories' | 'currencies' | 'sources';

/** Which API a caller uses: an error's hint names that API's way to the listing (a REST route, a GraphQL field). */
export type Surface = 'rest' | 'graphql';

/**
 * What an error says beyond its code and message: data only. The edge turns it into response headers
 * (Retry-After, WWW-Authenticate, Allow, RateLimit: src/http/answer/error-headers.ts) and the message's route
 * hint (src/graphql/error-body.ts).
 */
export interface ApiErrorDetails {
  /** Whole seconds after which the same request may succeed (a quota month, a rate-limit window, rates still loading). */
  retryAfterSeconds?: number;
  /**
   * UNAUTHORIZED, KEY_EXPIRED: the protection space of the credentials, whether some were sent but
   * refused, and where OAuth also grants them, the URL of the resource's metadata (RFC 9728).
   */
  challenge?: { realm: string; invalid: boolean; resourceMetadata?: string };
  /** METHOD_NOT_ALLOWED: the methods the resource answers. */
  allow?: readonly string[];
  /** RATE_LIMIT_EXCEEDED: the state of the exhausted request limit. */
  rateLimit?: RateLimitState;
  /** UNSUPPORTED_MEDIA_TYPE for a coded body: the content codings a request body may have (RFC 7694). */
  acceptEncoding?: readonly string[];
  /** A listing that helps (see SeeAlso). */
  seeAlso?: SeeAlso;
}

export interface ApiErrorOptions extends ApiErrorDetails {
  /** The one input at fault, when there is one (a field name, a query parameter, a path segment). */
  param?: string;
}

/**
 * An expected failure: it carries the contract's code and is shown to the caller as is. It has no
 * stack trace: it is an answer, never logged as a fault, and capturing the call stack is the largest
 * single cost of a refusal; refusals (bad keys, quota, rate limits) are what a flood is made of, so
 * they must stay cheap.
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly param: string | undefined;
  readonly details: Readonly<ApiErrorDetails>;

  constructor(code: ErrorCode, message: string, options: ApiErrorOptions = {}) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(message);
    } finally {
      Error.stackTraceLimit = limit;
    }
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    const { param, ...details } = options;
    this.param = param;
    this.details = details;
  }
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_STATUS, value);
}

/** The contract's error object: `{"error": ErrorBody}` in REST, a batch item's `error` member (see src/graphql/error-body.ts). */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  status: number;
  param?: string | undefined;
  requestId: string;
}

/**
 * Who changes an account's plan: no account changes its own (not through the API, not on the
 * account page); the operator of the server does, with the CLI. Callers are told whom to ask, never
 * the operator's command line. Every surface that speaks of a plan change says these words.
 */
export const PLAN_CHANGE = 'ask the operator of this server';

/**
 * The next step of a refusal that the caller cannot fix by correcting an argument: the end of its
 * message on every surface (REST, GraphQL, batch items), what MCP's tools give as `whatToDo`, and
 * the words of the account page.
 */
export const NEXT_STEP = {
  PLAN_REQUIRED: `To use it, ${PLAN_CHANGE} to move the account to the developer plan.`,
  QUOTA_EXCEEDED: `Wait for the reset, or ${PLAN_CHANGE} to move the account to a larger plan.`,
} as const satisfies Partial<Record<ErrorCode, string>>;

/** A refusal whose message ends with its code's next step (NEXT_STEP). */
export function refusalWithNextStep(code: keyof typeof NEXT_STEP, message: string, options: ApiErrorOptions = {}): ApiError {
  return new ApiError(code, `${message} ${NEXT_STEP[code]}`, options);
}

export const INTERNAL_MESSAGE = 'An unexpected error occurred; it has been logged with this requestId.';
