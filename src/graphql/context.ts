import type { Logger } from 'pino';
import type { Principal } from '../http/auth';
import type { RateLimitState } from '../http/rate-limit';
import type { AppServices } from '../services';
import type { Caller } from '../services/conversions';
import type { PublicationLoader } from '../services/currency';

/** What every resolver receives. Built once per request, for REST and GraphQL alike. */
export interface GraphQLContext {
  readonly requestId: string;
  readonly services: AppServices;
  readonly log: Logger;
  /** The caller's key, authenticated once per request; throws UNAUTHORIZED when absent or invalid. */
  requireKey(): Promise<Principal>;
  /** requireKey, plus what a conversion needs from the request. */
  caller(): Promise<Caller>;
  /** Batches this request's publication reads into one cache read (DataLoader, per request). */
  readonly publications: PublicationLoader;
  /** True for REST requests, whose rate limit the REST edge already spent. */
  readonly countedAtEdge: boolean;
  /** The caller's per-IP rate-limit bucket. */
  clientBucket(): string;
  /** Receives the rate-limit state after a spend, for the RateLimit headers. */
  reportRateLimit(state: RateLimitState): void;
}
