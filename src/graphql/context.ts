import type { Logger } from 'pino';
import type { AppServices } from '../services';
import type { RequestContext } from '../services/request-context';

/** What every resolver receives. Built once per request, for REST (through SOFA) and GraphQL alike. */
export interface GraphQLContext {
  /** This request's state, the same object the HTTP edge and the response hooks use. */
  readonly requestContext: RequestContext;
  readonly services: AppServices;
  readonly log: Logger;
}
