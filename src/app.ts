import { useSofa } from '@graphql-yoga/plugin-sofa';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { Config } from './config';
import { ApiError } from './domain/errors';
import type { AccountStore } from './data/store';
import type { GraphQLContext } from './graphql/context';
import { schema } from './graphql';
import { PLAYGROUND_INTROSPECTION } from './graphql/limits';
import { everyObjectType } from './graphql/object-types';
import { SCALAR_JSON_SCHEMAS } from './graphql/scalars';
import { clientBucket } from './http/client-address';
import { parseTrustProxy } from './http/client-ip';
import { contextFactory } from './http/context';
import { restErrorResponse, toApiError, toGraphQLError } from './http/errors';
import { buildOpenApiDocument } from './http/openapi';
import { requestState } from './http/request-state';
import { useRestSurface } from './http/rest';
import { DEFAULT_BODY_LIMIT, sofaRoutes } from './http/routes';
import { useErrorCodes } from './http/use-error-codes';
import { useGraphQLLimits } from './http/use-graphql-limits';
import { useJsonMediaTypes } from './http/use-json-media-types';
import { useLimitHeaders } from './http/use-limit-headers';
import type { RateLimiters } from './http/rate-limit';
import { COUNTED_AT_EDGE, rateLimitDirectiveFor } from './http/rate-limit-directive';
import { useRequestLog } from './http/use-request-log';
import { createMetrics, type Metrics } from './metrics';
import { createServices, type AppServices } from './services';
import type { RatesReader } from './services/rates';

export interface AppDependencies {
  config: Config;
  store: AccountStore;
  logger: Logger;
  rates: RatesReader;
  /** Request rate limiters (memory, or Redis for several instances): see createRateLimiters. */
  limiters: RateLimiters;
  /** The time, for everything that depends on it ("today" in Berlin, quota months). */
  clock?: () => Date;
  /** Where requests, refusals and the rates' age are counted; a fresh registry by default. */
  metrics?: Metrics;
}

export interface App {
  yoga: YogaServerInstance<Record<string, unknown>, GraphQLContext>;
  services: AppServices;
  metrics: Metrics;
}

const GRAPHQL_PATH = '/graphql';

/** Composes the server from explicit dependencies; main.ts only listens, tests call `yoga.fetch`. */
export function createApp({ config, store, logger, rates, limiters, clock = () => new Date(), metrics = createMetrics() }: AppDependencies): App {
  const services = createServices({ config, store, rates, clock, logger, metrics });
  metrics.watchRates(() => rates.status(), clock);
  const trust = parseTrustProxy(config.trustProxy);
  const rateLimits = rateLimitDirectiveFor<GraphQLContext>(limiters, {
    bucketOf: async (kind, context) => {
      if (context.countedAtEdge) return COUNTED_AT_EDGE;
      return kind === 'key' ? (await context.requireKey()).keyId : context.clientBucket();
    },
    onState: (state, context) => {
      if (!context.countedAtEdge) context.reportRateLimit(state);
    },
    onRefused: (kind, context) => {
      if (kind === 'public') metrics.rateLimited('public');
      else void context.requireKey().then((principal) => metrics.rateLimited(principal.account.plan), () => undefined);
    },
  });
  const executable = rateLimits.transformer(schema);
  const openapi = JSON.stringify(buildOpenApiDocument(schema));

  const yoga = createYoga<Record<string, unknown>, GraphQLContext>({
    schema: executable,
    graphqlEndpoint: GRAPHQL_PATH,
    // Yoga answers any URL ending in its health endpoint; a path with a literal space can never be requested.
    healthCheckEndpoint: '/ yoga health check disabled',
    landingPage: false,
    maxRequestBodySize: DEFAULT_BODY_LIMIT,
    cors: false,
    logging: false,
    graphiql: { title: 'Measurement API', defaultQuery: DEFAULT_QUERY, introspectionQueryName: PLAYGROUND_INTROSPECTION },
    renderGraphiQL,
    maskedErrors: { maskError: (error) => toGraphQLError(error) },
    context: contextFactory(services, logger, trust) as never,
    plugins: [
      useRequestLog(logger),
      useLimitHeaders(services.quota, clock),
      useRestSurface({
        schema,
        services,
        log: logger,
        openapi: () => openapi,
        passThrough: [GRAPHQL_PATH],
        rateLimit: (kind, serverContext, request) => {
          const state = requestState(serverContext);
          const bucket = kind === 'key' ? state.principal!.keyId : clientBucket(serverContext, request, trust);
          return limiters.consume(kind, bucket).then(
            (limit) => (state.rateLimit = limit),
            (error: unknown) => {
              if (error instanceof ApiError && error.code === 'RATE_LIMIT_EXCEEDED') metrics.rateLimited(kind === 'key' ? state.principal!.account.plan : 'public');
              throw error;
            },
          );
        },
      }),
      useErrorCodes(logger),
      useGraphQLLimits(),
      useJsonMediaTypes(),
      useSofa({
        basePath: '/v1',
        routes: sofaRoutes(),
        customScalars: SCALAR_JSON_SCHEMAS,
        ignore: everyObjectType(schema),
        // The REST edge fills in the request id (SOFA's handler cannot see the request).
        errorHandler: (errors) => restErrorResponse(toApiError(errors[0]), '') as never,
      }),
    ],
  });
  return { yoga, services, metrics };
}

const DEFAULT_QUERY = `# Units and categories are public; conversions need a key:
# add the header {"Authorization": "Bearer msr_test_..."} below.
{
  categories { id name unitCount }
  unit(id: "ft") { id name symbol aliases }
  # convert(value: "12.5", from: "inch", to: "centimeter") { result { value unit } }
}
`;
