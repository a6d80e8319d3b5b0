/** The messages of a unit expression that cannot be read. */
import { ApiError } from '../../errors';
import { quoteInput } from '../../quote-input';

/** Characters that would break a one-line message: shown as their code point ("\u000A"). */
const LINE_BREAKS = /[\n\v\f\r\u2028\u2029]/g;
const escapeLineBreaks = (source: string): string =>
  source.replace(LINE_BREAKS, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);

/** INVALID_REQUEST naming the side (`from` or `to`) and the expression, then what is wrong with it. */
export function expressionError(param: string, source: string, problem: string): ApiError {
  return new ApiError('INVALID_REQUEST', `${param} ${quoteInput(escapeLineBreaks(source))} is not a valid unit expression: ${problem}.`, {
    param,
  });
}
