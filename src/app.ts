import { useSofa } from '@graphql-yoga/plugin-sofa';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { Config } from './config';
import type { AccountStore } from './data/store';
import type { GraphQLContext } from './graphql/context';
import { schema } from './graphql';
import { everyObjectType } from './graphql/object-types';
import { SCALAR_JSON_SCHEMAS } from './graphql/scalars';
import { authenticate } from './http/auth';
import { restErrorResponse, toApiError, toGraphQLError } from './http/errors';
import { buildOpenApiDocument } from './http/openapi';
import { requestState } from './http/request-state';
import { useRestSurface } from './http/rest';
import { sofaRoutes } from './http/routes';
import { useErrorCodes } from './http/use-error-codes';
import { useRequestLog } from './http/use-request-log';
import type { AppServices } from './services';
import { createConversions } from './services/conversions';
import { API_VERSION } from './version';

export interface AppDependencies {
  config: Config;
  store: AccountStore;
  logger: Logger;
}

export interface App {
  yoga: YogaServerInstance<Record<string, unknown>, GraphQLContext>;
  services: AppServices;
}

const GRAPHQL_PATH = '/graphql';

/** Composes the server from explicit dependencies; main.ts only listens, tests call `yoga.fetch`. */
export function createApp({ config, store, logger }: AppDependencies): App {
  const services: AppServices = {
    config,
    store,
    conversions: createConversions((error, requestId) => logger.error({ err: error, requestId }, 'unexpected error in batch item')),
    authenticate: (authorization) => authenticate(authorization, store, config.apiEnv),
    health: () => ({
      status: 'degraded',
      version: API_VERSION,
      rates: { date: null, fetchedAt: null, stale: true, lastError: null },
    }),
  };
  const openapi = JSON.stringify(buildOpenApiDocument(schema));

  const yoga = createYoga<Record<string, unknown>, GraphQLContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    // Yoga answers any URL ending in its health endpoint; a path with a literal space can never be requested.
    healthCheckEndpoint: '/ yoga health check disabled',
    landingPage: false,
    cors: false,
    logging: false,
    graphiql: { title: 'Measurement API', defaultQuery: DEFAULT_QUERY },
    renderGraphiQL,
    maskedErrors: { maskError: (error) => toGraphQLError(error as never) },
    context: ({ request, ...serverContext }): GraphQLContext => {
      const state = requestState(serverContext);
      let principal = state.principal ? Promise.resolve(state.principal) : undefined;
      return {
        requestId: state.requestId,
        services,
        log: logger,
        requireKey: () => (principal ??= services.authenticate(request.headers.get('authorization'))),
      };
    },
    plugins: [
      useRequestLog(logger),
      useRestSurface({ schema, services, log: logger, openapi: () => openapi, passThrough: [GRAPHQL_PATH] }),
      useErrorCodes(),
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
