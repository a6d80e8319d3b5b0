import { redactMessage } from './quote-input';

/**
 * The one error table: every error code the API can answer with, and its HTTP status.
 * REST renders `{"error": {...}}` with this status; GraphQL puts the same code and status
 * in `extensions`. Nothing else in the code base decides a status.
 */
export const ERROR_STATUS = {
  INVALID_REQUEST: 400,
  UNAUTHORIZED: 401,
  PLAN_REQUIRED: 403,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
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

export interface ApiErrorOptions {
  /** The one input at fault, when there is one (a field name, a query parameter, a path segment). */
  param?: string;
  /** Response headers the error requires (Retry-After, Allow, WWW-Authenticate). */
  headers?: Record<string, string>;
}

/** An expected failure: it carries the contract's code and is shown to the caller as is. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly param: string | undefined;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: ApiErrorOptions = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.param = options.param;
    this.headers = options.headers ?? {};
  }
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_STATUS, value);
}

/** The contract's error object: `{"error": ErrorBody}` in REST, a batch item's `error` member. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  status: number;
  param?: string | undefined;
  requestId: string;
}

export function errorBody(error: ApiError, requestId: string): ErrorBody {
  return {
    code: error.code,
    message: redactMessage(error.message),
    status: error.status,
    ...(error.param === undefined ? {} : { param: error.param }),
    requestId,
  };
}

export const INTERNAL_MESSAGE = 'An unexpected error occurred; it has been logged with this requestId.';
