import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { GraphQLContext } from '../graphql/context';
import type { AppServices } from '../services';
import { RequestContext, type RequestContextServices } from '../services/request-context';
import { clientIp, rateLimitBucket, type TrustProxy } from '../domain/client-ip';

/** Yoga's server context here: node:http's request (absent in-process) and this request's context. */
export interface ServerContext {
  /** node:http's IncomingMessage; only its socket's peer address is read. */
  req?: { readonly socket?: { readonly remoteAddress?: string | undefined } | undefined };
  requestContext?: RequestContext;
}

/** The request's context; a TypeError names the mistake when a hook runs before useRequestContext. */
export function requestContextOf(serverContext: object): RequestContext {
  const context = (serverContext as ServerContext).requestContext;
  if (!(context instanceof RequestContext)) {
    throw new TypeError(`No RequestContext on the server context (got ${typeof context}): useRequestContext must be the first plugin.`);
  }
  return context;
}

/**
 * Builds the request's context before anything else runs, in one place for every request. Yoga hands
 * its context factory a copy of the server context, so the context must exist before that copy is
 * made: then the REST edge, the resolvers and the response hooks all hold the same object. Yoga's
 * own early answers (GraphiQL) end the request before any user plugin's onRequest: this plugin's
 * onResponse, which runs before the others', gives those a context too.
 */
export function useRequestContext(contextServices: RequestContextServices, trust: TrustProxy): Plugin<Record<string, unknown>, ServerContext> {
  const ensure = (request: Request, serverContext: ServerContext) => {
    serverContext.requestContext ??= new RequestContext(contextServices, {
      authorization: request.headers.get('authorization'),
      clientBucket: () => rateLimitBucket(clientIp(serverContext.req?.socket?.remoteAddress ?? '127.0.0.1', request.headers.get('x-forwarded-for'), trust)),
    });
  };
  return {
    onRequest: ({ request, serverContext }) => ensure(request, serverContext),
    onResponse: ({ request, serverContext }) => ensure(request, serverContext),
  };
}

/** What every request context is built on, from the app's services. */
export function requestContextServices(services: AppServices): RequestContextServices {
  return {
    authenticate: services.authenticate,
    ...(services.unconfirmedPrincipal ? { unconfirmedPrincipal: services.unconfirmedPrincipal } : {}),
    keysRevision: services.keysRevision,
    loadPublications: (dates) => services.rates.loadPublications(dates),
    quotaState: services.quota.state,
  };
}

/** Yoga's context factory: the resolvers' view of the request (its context) and the services. */
export function graphQLContextFactory(services: AppServices, log: Logger) {
  return (serverContext: ServerContext): GraphQLContext => ({ requestContext: requestContextOf(serverContext), services, log });
}
