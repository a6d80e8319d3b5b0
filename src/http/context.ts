import DataLoader from 'dataloader';
import type { Logger } from 'pino';
import type { GraphQLContext } from '../graphql/context';
import type { AppServices } from '../services';
import type { PublicationLoader } from '../services/currency';
import { clientBucket } from './client-address';
import type { TrustProxy } from './client-ip';
import { requestState } from './request-state';

/** Builds the per-request GraphQL context (REST requests through SOFA included). */
export function contextFactory(services: AppServices, log: Logger, trust: TrustProxy) {
  return ({ request, ...serverContext }: { request: Request } & Record<string, unknown>): GraphQLContext => {
    const state = requestState(serverContext);
    let principal = state.principal ? Promise.resolve(state.principal) : undefined;
    const requireKey = () =>
      (principal ??= services.authenticate(request.headers.get('authorization')).then((p) => (state.principal = p)));
    let loader: PublicationLoader | undefined;
    // Built on first use: most requests read no rates. One per request, so a batch's reads are one.
    const publications = () => (loader ??= new DataLoader((dates) => services.rates.loadPublications(dates)));
    return {
      requestId: state.requestId,
      services,
      log,
      requireKey,
      get publications() {
        return publications();
      },
      caller: async () => ({
        principal: await requireKey(),
        requestId: state.requestId,
        publications: publications(),
        reportQuota: (quota) => (state.quota = quota),
      }),
      // A REST request was counted by the edge, before its inputs were checked.
      countedAtEdge: state.route !== undefined,
      clientBucket: () => clientBucket(serverContext, request, trust),
      reportRateLimit: (limit) => (state.rateLimit = limit),
    };
  };
}
