import { randomUUID } from 'node:crypto';
import type { Principal } from './auth';
import type { RestRoute } from './routes';

/** What one request carries between the HTTP hooks and the GraphQL context. */
export interface RequestState {
  readonly requestId: string;
  readonly startedAt: number;
  /** The REST route being served, when the request is one. */
  route?: RestRoute;
  /** The authenticated key of a keyed REST route (authenticated before SOFA coerces inputs). */
  principal?: Principal;
}

const KEY = 'measurementApi';

/** The state of this request, created on first use. Yoga's server context is one object per request. */
export function requestState(serverContext: object): RequestState {
  const holder = serverContext as { [KEY]?: RequestState };
  holder[KEY] ??= { requestId: randomUUID(), startedAt: performance.now() };
  return holder[KEY];
}
