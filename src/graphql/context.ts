import type { Logger } from 'pino';
import type { Principal } from '../http/auth';
import type { AppServices } from '../services';

/** What every resolver receives. Built once per request, for REST and GraphQL alike. */
export interface GraphQLContext {
  readonly requestId: string;
  readonly services: AppServices;
  readonly log: Logger;
  /** The caller's key, authenticated once per request; throws UNAUTHORIZED when absent or invalid. */
  requireKey(): Promise<Principal>;
}
