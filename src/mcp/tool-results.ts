import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ExecutionResult, GraphQLFormattedError } from 'graphql';
import { GraphQLError } from 'graphql';
import { z } from 'zod';
import { ERROR_CODES, NEXT_STEP, type ApiError, type ErrorCode } from '../domain/errors';
import { toApiError } from '../http/answer/errors';

/** What a tool tells an agent that made a mistake or was refused: enough to fix the call or to know what to do. */
export interface ToolError {
  code: ErrorCode;
  message: string;
  /** The argument at fault, when one is. */
  parameter?: string;
  /** What the server guessed was meant ("did you mean kilometer?"). */
  suggestions?: string[];
  /** Both sides' dimensions, when units of different dimensions were asked to convert. */
  dimensions?: string;
  /** Seconds after which the same call may succeed (a rate limit, the quota's month, rates still loading). */
  retryAfterSeconds?: number;
  /** The next step, in a sentence. */
  whatToDo: string;
}

/** The structured content of every refusal, in each tool's output schema beside its answers. */
export const toolErrorSchema = z.object({
  error: z.object({
    code: z.enum(ERROR_CODES),
    message: z.string(),
    parameter: z.string().optional(),
    suggestions: z.array(z.string()).optional(),
    dimensions: z.string().optional(),
    retryAfterSeconds: z.number().int().optional(),
    whatToDo: z.string(),
  }),
});

/** What to do about each refusal an agent can meet; the rest say to correct the argument named. */
const WHAT_TO_DO: Partial<Record<ErrorCode, string>> = {
  UNKNOWN_UNIT: 'Use a suggestion, or look the unit up with find_units (by name, alias or category).',
  INCOMPATIBLE_UNITS: 'Convert between units of one dimension: find_units lists the units of each category.',
  UNKNOWN_CURRENCY: 'Look the currency up with find_currencies (by code or name).',
  RATE_NOT_FOUND:
    'Pick a date from 1999-01-04 to today on which the currency was quoted (find_currencies gives each one its first and last date).',
  PLAN_REQUIRED: NEXT_STEP.PLAN_REQUIRED,
  QUOTA_EXCEEDED: NEXT_STEP.QUOTA_EXCEEDED,
  RATE_LIMIT_EXCEEDED: 'Too many calls in a short time: wait retryAfterSeconds, then call again.',
  SERVICE_UNAVAILABLE: 'The server has no exchange rates loaded yet: try again after retryAfterSeconds; unit conversions work meanwhile.',
  INTERNAL: 'An unexpected error on the server: try again later; it is logged with its request id.',
};

/** A tool's answer: a short text for the model and the same facts as structured content. */
export function toolSuccess(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

/** A refusal as a tool result (never a protocol error), from the first error of a GraphQL result. */
export function toolFailure(error: GraphQLError | GraphQLFormattedError): CallToolResult {
  return toolRefusal(
    toApiError(error instanceof GraphQLError ? error : new GraphQLError(error.message, { extensions: error.extensions ?? {} })),
  );
}

/** A refusal as a tool result, in the contract's terms: its code, its message, the argument at fault and what to do. */
export function toolRefusal(apiError: ApiError): CallToolResult {
  const failure: ToolError = {
    code: apiError.code,
    message: apiError.message,
    whatToDo: WHAT_TO_DO[apiError.code] ?? 'Correct the argument named in `parameter` and call again.',
  };
  if (apiError.param !== undefined) failure.parameter = apiError.param;
  const suggested = /did you mean ([^?]+)\?/.exec(apiError.message)?.[1];
  if (suggested !== undefined)
    failure.suggestions = suggested
      .split(/, | or /)
      .map((s) => s.trim())
      .filter((s) => s !== '');
  if (apiError.code === 'INCOMPATIBLE_UNITS') {
    const dimensions = /: ([^:]+ is [^:]+)\.$/.exec(apiError.message)?.[1];
    if (dimensions !== undefined) failure.dimensions = dimensions;
  }
  if (apiError.details.retryAfterSeconds !== undefined) failure.retryAfterSeconds = apiError.details.retryAfterSeconds;
  // A message that ends with its next step (NEXT_STEP) already says what to do.
  const text = failure.message.endsWith(failure.whatToDo)
    ? `${failure.code}: ${failure.message}`
    : `${failure.code}: ${failure.message} ${failure.whatToDo}`;
  return { content: [{ type: 'text', text }], structuredContent: { error: failure }, isError: true };
}

/**
 * The data of a result, or the tool result of its first error. A field that failed leaves an
 * error even when another field of the document answered: the tool reports the failure.
 */
export function dataOr<T>(result: ExecutionResult): { data: T } | { failed: CallToolResult } {
  const first = result.errors?.[0];
  if (first !== undefined) return { failed: toolFailure(first) };
  if (!result.data) return { failed: toolFailure(new GraphQLError('The server answered nothing.', { extensions: { code: 'INTERNAL' } })) };
  return { data: result.data as T };
}
