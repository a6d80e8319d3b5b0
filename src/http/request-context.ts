import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { GraphQLContext } from '../graphql/context';
import type { AppServices } from '../services';
import { RequestContext, type RequestContextServices } from '../services/request-context';
import { languageHeaders } from './content-language';
import { clientIp, rateLimitBucket, type TrustProxy } from '../domain/client-ip';

/** Yoga's server context here: node:http's request (absent in-process) and this request's context. */
export interface ServerContext {
  /** node:http's IncomingMessage; only its socket's peer address is read. */
  req?: { readonly socket?: { readonly remoteAddress?: string | undefined } | undefined };
  requestContext?: RequestContext;
  /** A route's execution by SOFA for the edge (sofa-execution.ts): the edge writes, times and logs its answer. */
  execution?: true;
}

/** Whether Yoga serves this request for the edge, which answers it itself. */
export function isExecution(serverContext: object): boolean {
  return (serverContext as ServerContext).execution === true;
}

/** The request's context; a TypeError names the mistake when a hook runs before useRequestContext. */
export function requestContextOf(serverContext: object): RequestContext {
  const context = (serverContext as ServerContext).requestContext;
  if (!(context instanceof RequestContext)) {
    throw new TypeError(`No RequestContext on the server context (got ${typeof context}): useRequestContext must be the first plugin.`);
  }
  return context;
}

/** Where a request came from, as both paths read it: the socket node:http gives (absent in-process) and two headers. */
export interface RequestOrigin {
  authorization: string | null;
  forwardedFor: string | null;
  socket: { readonly remoteAddress?: string | undefined } | undefined;
  /** The answer confirms a key taken from the cache unconfirmed before it goes (the edge's directly executed REST answers, in the finish's key confirmation). */
  confirmsBeforeAnswer?: boolean;
  /** The Accept-Language header: the language of names where a field is given no `lang`. */
  acceptLanguage?: string | null;
}

/**
 * Builds each request's context, for the edge and the Yoga path alike. The client's rate-limit
 * bucket is worked out when first asked for; a keep-alive connection's is computed once per socket
 * (without X-Forwarded-For, which may differ from one request to the next).
 */
export function requestContexts(contextServices: RequestContextServices, trust: TrustProxy): (origin: RequestOrigin) => RequestContext {
  const buckets = new WeakMap<object, string>();
  const bucketOf = ({ forwardedFor, socket }: RequestOrigin) => {
    const address = socket?.remoteAddress ?? '127.0.0.1';
    if (forwardedFor !== null) return rateLimitBucket(clientIp(address, forwardedFor, trust));
    let bucket = socket && buckets.get(socket);
    if (bucket === undefined) {
      bucket = rateLimitBucket(clientIp(address, null, trust));
      if (socket?.remoteAddress !== undefined) buckets.set(socket, bucket);
    }
    return bucket;
  };
  return (origin) =>
    new RequestContext(contextServices, {
      authorization: origin.authorization,
      clientBucket: () => bucketOf(origin),
      confirmsBeforeAnswer: origin.confirmsBeforeAnswer ?? false,
      acceptLanguage: origin.acceptLanguage ?? null,
    });
}

/**
 * Gives the request its context before anything else runs. Yoga hands its context factory a copy
 * of the server context, so the context must exist before that copy is made: then the resolvers
 * and the response hooks all hold the same object. Yoga's own early answers (GraphiQL) end the
 * request before any user plugin's onRequest: this plugin's onResponse, which runs before the
 * others', gives those a context too, and every answer of Yoga's its request id.
 */
export function useRequestContext(contextOf: (origin: RequestOrigin) => RequestContext): Plugin<Record<string, unknown>, ServerContext> {
  const ensure = (request: Request, serverContext: ServerContext) => {
    serverContext.requestContext ??= contextOf({
      authorization: request.headers.get('authorization'),
      forwardedFor: request.headers.get('x-forwarded-for'),
      socket: serverContext.req?.socket,
      acceptLanguage: request.headers.get('accept-language'),
    });
  };
  return {
    onRequest: ({ request, serverContext }) => ensure(request, serverContext),
    onResponse: ({ request, response, serverContext }) => {
      ensure(request, serverContext);
      response.headers.set('x-request-id', serverContext.requestContext!.requestId);
      for (const [name, value] of Object.entries(languageHeaders(serverContext.requestContext!, response.status, response.headers.get('vary')))) response.headers.set(name, value);
    },
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
