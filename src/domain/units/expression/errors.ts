/** The messages of a unit expression that cannot be read. */
import { ApiError } from '../../errors';
import { quoteInput } from '../../quote-input';

/** INVALID_REQUEST naming the side (`from` or `to`) and the expression, then what is wrong with it. */
export function expressionError(param: string, source: string, problem: string): ApiError {
  return new ApiError('INVALID_REQUEST', `${param} ${quoteInput(source)} is not a valid unit expression: ${problem}.`, { param });
}
