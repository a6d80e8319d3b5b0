import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import type { GraphQLContext } from '../../graphql/context';
import type { AppServices } from '../../services';
import { RequestContext, type RequestContextServices } from '../../services/request-context';
import { headerText, pathOf } from './target';
import { MCP_PATH } from '../routes';
import type { CredentialResource } from '../../services/oauth';
import { clientIp, rateLimitBucket, type TrustProxy } from '../../domain/client-ip';
import type { Surface } from '../../domain/errors';
import { RateLimitSpend } from '../../domain/rate-limit';

/**
 * A request's context as the front mints it: the use cases' state (RequestContext) and what only
 * the transport reads: the rate-limit spend its RateLimit headers report, its Retry-After, the code
 * its access-log line carries, and whether its answer waits for the key's confirmation.
 */
export class HttpRequestContext extends RequestContext {
  /** What this request spent of the request rate limits, from which bucket, and the state its RateLimit headers report. */
  readonly rateLimitSpend = new RateLimitSpend();
  /**
   * The answer is held until confirmKey() has settled (the edge's directly executed REST answers,
   * as they are finished): the key may then be taken from the key cache unconfirmed, and its
   * charge's statement (or a revision read at the answer) confirms it.
   */
  confirmsBeforeAnswer = false;
  /** The longest Retry-After (seconds) among the errors of this request's answer. */
  retryAfter: number | undefined;
  /** The code of the error this request was answered with (a GraphQL result's first error), for its access-log line. */
  errorCode: string | undefined;

  protected override confirmsKeyBeforeAnswer(): boolean {
    return this.confirmsBeforeAnswer;
  }

  override confirmKey(): Promise<void> | undefined {
    // An answer that says the database is away is what a full check would answer too.
    return this.errorCode === 'SERVICE_UNAVAILABLE' ? undefined : super.confirmKey();
  }

  /** Keeps the longest Retry-After of the request's errors, for the response header. */
  noteRetryAfter(seconds: number): void {
    if (Number.isFinite(seconds) && seconds > 0) this.retryAfter = Math.max(this.retryAfter ?? 0, seconds);
  }
}

/** The GraphQL context of a request the front admitted: its request context is the front's. */
export type HttpGraphQLContext = GraphQLContext & { readonly requestContext: HttpRequestContext };

/** Yoga's server context here: node:http's request (absent in-process) and this request's context. */
export interface ServerContext {
  /** node:http's IncomingMessage; only its socket's peer address is read. */
  req?: { readonly socket?: { readonly remoteAddress?: string | undefined } | undefined };
  requestContext?: HttpRequestContext;
}

/** The request's context; a TypeError names the mistake when a request reaches Yoga without the front. */
export function requestContextOf(serverContext: object): HttpRequestContext {
  const context = (serverContext as ServerContext).requestContext;
  if (!(context instanceof HttpRequestContext)) {
    throw new TypeError(
      `No HttpRequestContext on the server context (got ${typeof context}): every request reaches Yoga through the front, which mints it.`,
    );
  }
  return context;
}

/** Where a request came from: the socket node:http gives and three headers. */
export interface RequestOrigin {
  authorization: string | null;
  forwardedFor: string | null;
  socket: { readonly remoteAddress?: string | undefined } | undefined;
  /** The Accept-Language header: the language of names where a field is given no `lang`. */
  acceptLanguage?: string | null;
  /** A REST route's request (the edge's), else a GraphQL one: the API its error messages name. */
  surface?: Surface;
  /** The resource the credential is presented to (/mcp takes agents' OAuth tokens); `api` by default. */
  resource?: CredentialResource;
  /** The Host header. */
  host?: string | null;
}

/**
 * Builds each request's context, once, at the front. The client's rate-limit
 * bucket is worked out when first asked for; a keep-alive connection's is computed once per socket
 * (without X-Forwarded-For, which may differ from one request to the next).
 */
export function requestContexts(contextServices: RequestContextServices, trust: TrustProxy): (origin: RequestOrigin) => HttpRequestContext {
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
    new HttpRequestContext(contextServices, {
      authorization: origin.authorization,
      clientBucket: () => bucketOf(origin),
      acceptLanguage: origin.acceptLanguage ?? null,
      surface: origin.surface ?? 'graphql',
      resource: origin.resource ?? 'api',
      host: origin.host ?? null,
    });
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
  return (serverContext: ServerContext): HttpGraphQLContext => ({ requestContext: requestContextOf(serverContext), services, log });
}

/** A node:http request's origin, as its context is built from it: its messages name REST routes under /v1, GraphQL fields elsewhere. */
export function originOf(req: IncomingMessage): RequestOrigin {
  return {
    authorization: req.headers.authorization ?? null,
    forwardedFor: headerText(req.headers['x-forwarded-for']),
    socket: req.socket,
    acceptLanguage: headerText(req.headers['accept-language']),
    surface: req.url?.startsWith('/v1/') ? 'rest' : 'graphql',
    resource: pathOf(req.url) === MCP_PATH ? 'mcp' : 'api',
    host: headerText(req.headers.host),
  };
}
