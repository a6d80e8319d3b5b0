import { useSofa } from '@graphql-yoga/plugin-sofa';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { Config } from './config';
import type { AccountStore } from './data/store';
import type { GraphQLContext } from './graphql/context';
import { schema } from './graphql';
import { PLAYGROUND_INTROSPECTION } from './graphql/limits';
import { everyObjectType } from './graphql/object-types';
import { SCALAR_JSON_SCHEMAS } from './graphql/scalars';
import { parseTrustProxy } from './http/client-ip';
import { restErrorResponse, toApiError, toGraphQLError } from './http/errors';
import { buildOpenApiDocument } from './http/openapi';
import { graphQLContextFactory, useRequestContext, type ServerContext } from './http/request-context';
import { useRestSurface } from './http/rest';
import { DEFAULT_BODY_LIMIT, sofaRoutes } from './http/routes';
import { useErrorCodes } from './http/use-error-codes';
import { useGraphQLLimits } from './http/use-graphql-limits';
import { useJsonMediaTypes } from './http/use-json-media-types';
import { useLimitHeaders } from './http/use-limit-headers';
import type { RateLimiters } from './http/rate-limit';
import { rateLimitDirectiveFor } from './http/rate-limit-directive';
import { useConversionBudget } from './http/use-conversion-budget';
import { useRequestLog } from './http/use-request-log';
import { useAccountPage } from './pages/account-page';
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
}

export interface App {
  yoga: YogaServerInstance<ServerContext, GraphQLContext>;
  services: AppServices;
}

const GRAPHQL_PATH = '/graphql';

/** Composes the server from explicit dependencies; main.ts only listens, tests call `yoga.fetch`. */
export function createApp({ config, store, logger, rates, limiters, clock = () => new Date() }: AppDependencies): App {
  const services = createServices({ config, store, rates, clock, logger, limiters });
  const trust = parseTrustProxy(config.trustProxy);
  const rateLimits = rateLimitDirectiveFor<GraphQLContext>(limiters, {
    bucketOf: async (kind, { requestContext }) => (kind === 'key' ? (await requestContext.authenticate()).keyId : requestContext.clientBucket),
    onState: (state, { requestContext }) => {
      requestContext.rateLimit = state;
    },
    // A REST request was counted by the edge, before its inputs were checked (the contract's order).
    pointsOf: ({ requestContext }) => (requestContext.rateLimitSpent ? 0 : 1),
  });
  const executable = rateLimits.transformer(schema);
  const openapi = JSON.stringify(buildOpenApiDocument(schema));

  const yoga = createYoga<ServerContext, GraphQLContext>({
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
    context: graphQLContextFactory(services, logger),
    plugins: [
      useRequestContext(services, trust),
      useLimitHeaders(services.quota, clock),
      // Before the REST edge: it answers everything under /account and ends the request there.
      useAccountPage({ services, trust, log: logger }),
      useRestSurface({
        schema,
        services,
        log: logger,
        openapi: () => openapi,
        passThrough: [GRAPHQL_PATH, '/account', '/account/'],
        rateLimit: async (kind, context) => {
          context.rateLimit = await limiters.consume(kind, kind === 'key' ? (await context.authenticate()).keyId : context.clientBucket);
          context.rateLimitSpent = true;
        },
      }),
      useErrorCodes(logger),
      useGraphQLLimits(),
      useConversionBudget(),
      useJsonMediaTypes(),
      useSofa({
        basePath: '/v1',
        routes: sofaRoutes(),
        customScalars: SCALAR_JSON_SCHEMAS,
        ignore: everyObjectType(schema),
        // The REST edge fills in the request id (SOFA's handler cannot see the request).
        errorHandler: (errors) => restErrorResponse(toApiError(errors[0]), '') as never,
      }),
      // Last, so that it logs the status and headers every other hook has settled (a 304 included).
      useRequestLog(logger),
    ],
  });
  return { yoga, services };
}

const DEFAULT_QUERY = `# Units and categories are public; conversions need a key:
# add the header {"Authorization": "Bearer msr_test_..."} below.
{
  categories { id name unitCount }
  unit(id: "ft") { id name symbol aliases }
  # convert(value: "12.5", from: "inch", to: "centimeter") { result { value unit } }
}
`;
