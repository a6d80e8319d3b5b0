import { randomUUID } from 'node:crypto';
import type { QuotaState } from '../domain/quota';
import type { Principal } from './auth';
import type { RateLimitState } from './rate-limit';
import type { RestRoute } from './routes';

/** What one request carries between the HTTP hooks and the GraphQL context. */
export interface RequestState {
  readonly requestId: string;
  readonly startedAt: number;
  /** The REST route being served, when the request is one. */
  route?: RestRoute;
  /** The path is a shared resource: every answer on it carries `Access-Control-Allow-Origin: *`. */
  shared?: boolean;
  /** A HEAD request, served as its GET without the body. */
  head?: boolean;
  /** The authenticated key: of a keyed REST route (before SOFA coerces inputs), or of a GraphQL request once a keyed field asked. */
  principal?: Principal;
  /** The account's quota after this request's last charge, for the X-Quota-* headers. */
  quota?: QuotaState;
  /** The request rate limit after this request's last spend, for the RateLimit headers. */
  rateLimit?: RateLimitState;
}

const KEY = 'measurementApi';

/** The state of this request, created on first use. Yoga's server context is one object per request. */
export function requestState(serverContext: object): RequestState {
  const holder = serverContext as { [KEY]?: RequestState };
  holder[KEY] ??= { requestId: randomUUID(), startedAt: performance.now() };
  return holder[KEY];
}
