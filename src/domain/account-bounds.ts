import { ApiError } from './errors';

/**
 * What one account may hold, so no account can fill the shared outbox or key table: webhook
 * endpoints, and live keys (not revoked, not past their end). A rotation replaces a key and is
 * never refused for this bound (during its grace the account holds one key more).
 */
export interface AccountBounds {
  webhookEndpoints: number;
  liveKeys: number;
}

export const DEFAULT_ACCOUNT_BOUNDS: AccountBounds = { webhookEndpoints: 10, liveKeys: 100 };

export function tooManyEndpoints(max: number): ApiError {
  return new ApiError('INVALID_REQUEST', `An account has at most ${max} webhook endpoints; remove one first.`, { param: 'url' });
}

export function tooManyKeys(max: number): ApiError {
  return new ApiError('INVALID_REQUEST', `An account has at most ${max} live keys (not revoked and not expired); revoke one first.`);
}
