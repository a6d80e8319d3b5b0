import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { Config } from './config';
import { ApiError } from './domain/errors';
import type { AccountStore } from './services/account-store';
import type { GraphQLContext } from './graphql/context';
import { schema } from './graphql';
import { everyObjectType } from './graphql/object-types';
import { SCALAR_JSON_SCHEMAS } from './graphql/scalars';
import { parseTrustProxy, type TrustProxy } from './domain/client-ip';
import { useGraphiQL } from './http/graphiql/use-graphiql';
import { toGraphQLError } from './http/errors';
import { buildOpenApiDocument } from './http/openapi';
import { Endpoints } from './http/endpoint';
import { createEdge } from './http/edge';
import { createFinish } from './http/finish';
import type { Front } from './http/node-server';
import { yogaAnswers } from './http/yoga-answers';
import { GRAPHQL_PATH } from './http/graphql-http';
import { graphQLContextFactory, requestContexts, requestContextServices, type ServerContext } from './http/request-context';
import { DEFAULT_BODY_LIMIT, sofaRoutes } from './http/routes';
import { useErrorCodes } from './http/use-error-codes';
import { useGraphQLLimits } from './http/use-graphql-limits';
import { fieldPoints, useRequestRateLimit } from './http/use-request-rate-limit';
import { boundedParserCaches, DOCUMENT_CACHE_BYTES } from './graphql/document-cache';
import { useJsonMediaTypes } from './http/use-json-media-types';
import type { RateLimiters } from './http/rate-limit';
import { rateLimitDirectiveFor } from './http/rate-limit-directive';
import type { RequestContext } from './services/request-context';
import { useConversionBudget } from './http/use-conversion-budget';
import { useSofaExecution } from './http/sofa-execution';
import { useCostExtensions } from './http/use-cost-extensions';
import { useAccountPage } from './pages/account-page';
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
  services: AppServices;
  /** What the one front (createHttpServer) dispatches to and finishes every answer with. */
  front: Front;
  metrics: Metrics;
}


/**
 * Composes the server from explicit dependencies; main.ts and the tests listen with createHttpServer.
 * The steps: the services, the fields' rate limits on the schema, the edges' spending of the
 * request rate limit, Yoga with its plugins as GraphQL's executor, the one finish, and the handlers
 * the front dispatches to.
 */
export function createApp({ config, store, logger, rates, limiters, clock = () => new Date(), metrics = createMetrics() }: AppDependencies): App {
  const services = createServices({ config, store, rates, clock, logger, limiters, metrics });
  metrics.watchRates(() => rates.status(), clock);
  const trust = parseTrustProxy(config.trustProxy);
  const executable = fieldRateLimits(limiters, services, metrics).transformer(schema);
  /** Each request's context, minted once by the front. */
  const contextOf = requestContexts(requestContextServices(services), trust);
  const { spendOne, spendRateLimit, spendKeyRequests } = requestSpending(limiters, services, metrics);
  const openapi = JSON.stringify(buildOpenApiDocument(schema));
  /** Each route of the table compiled once. */
  const endpoints = new Endpoints(schema, () => services.rates.latestMaxAgeSeconds());
  const yoga = createYogaServer({ config, services, executable, logger, clock, trust, spendOne });
  const finish = createFinish({ services, log: logger, clock, metrics });
  const edge = createEdge({ schema, endpoints, services, finish, spendRateLimit, spendKeyRequests, log: logger, clock, metrics, yoga, execution: config.restExecution, openapi: () => openapi });
  const { graphql, pages } = yogaAnswers({ yoga, finish, services, log: logger, clock });
  return { services, front: { contextOf, finish, edge, graphql, pages, metrics }, metrics };
}

/** The @rateLimit directive's fields: which bucket a field spends, and what a refusal counts. */
function fieldRateLimits(limiters: RateLimiters, services: AppServices, metrics: Metrics) {
  return rateLimitDirectiveFor<GraphQLContext>(limiters, {
    bucketOf: async (kind, { requestContext }) => (kind === 'key' ? (await requestContext.authenticate()).keyId : requestContext.clientBucket),
    onState: (state, { requestContext }) => {
      requestContext.rateLimit = state;
    },
    // A REST request was counted by the edge, before its inputs were checked (the contract's order);
    // a GraphQL request, before its document was parsed (useRequestRateLimit).
    pointsOf: ({ requestContext }, kind) => fieldPoints(requestContext, kind),
    onRefused: (kind, { requestContext }) => {
      if (kind === 'public') metrics.rateLimited('public');
      else {
        void requestContext.authenticate().then((principal) => {
          metrics.rateLimited(principal.account.plan);
          services.refusals.refused(principal.account.id, 'rate');
        }, () => undefined);
      }
    },
  });
}

type SpendOne = (kind: 'public' | 'key', context: RequestContext, points?: number) => Promise<void>;

/** How the edges (REST, GraphiQL, a GraphQL request before its document is parsed) spend the caller's request rate limit. */
function requestSpending(limiters: RateLimiters, services: AppServices, metrics: Metrics) {
  /** One request of the caller's rate limit (per key, or per client IP), for the edges that spend before the fields do. */
  const spendOne: SpendOne = async (kind, context, points = 1) => {
    try {
      // The edges authenticate first: the key's id is there without another await.
      const bucket = kind === 'key' ? (context.principal ?? (await context.authenticate())).keyId : context.clientBucket;
      context.rateLimit = await limiters.consume(kind, bucket, points);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'RATE_LIMIT_EXCEEDED') {
        metrics.rateLimited(kind === 'key' ? context.principal!.account.plan : 'public');
        if (kind === 'key') services.refusals.refused(context.principal!.account.id, 'rate');
      }
      throw error;
    }
  };
  /** The edge spends the caller's request rate limit here: the field it runs spends nothing more. */
  const spendRateLimit = (kind: 'public' | 'key', context: RequestContext) =>
    spendOne(kind, context).then(() => {
      context.rateLimitSpent = true;
    });
  const spendKeyRequests = (context: RequestContext, points: number) => spendOne('key', context, points);
  return { spendOne, spendRateLimit, spendKeyRequests };
}

interface YogaServerParts {
  config: Config;
  services: AppServices;
  /** The schema with its fields' rate limits. */
  executable: typeof schema;
  logger: Logger;
  clock: () => Date;
  trust: TrustProxy;
  spendOne: SpendOne;
}

/** Yoga on the rate-limited schema, with its plugins in the order their hooks must run. */
function createYogaServer({ config, services, executable, logger, clock, trust, spendOne }: YogaServerParts): YogaServerInstance<ServerContext, GraphQLContext> {
  return createYoga<ServerContext, GraphQLContext>({
    schema: executable,
    graphqlEndpoint: GRAPHQL_PATH,
    // Yoga answers any URL ending in its health endpoint; a path with a literal space can never be requested.
    healthCheckEndpoint: '/ yoga health check disabled',
    landingPage: false,
    // The JSON parser of useJsonMediaTypes enforces it, without Yoga's per-request TransformStream.
    maxRequestBodySize: false,
    cors: false,
    logging: false,
    // GraphiQL is served by useGraphiQL from hashed static assets, not inline by Yoga.
    graphiql: false,
    maskedErrors: { maskError: (error) => toGraphQLError(error) },
    // Yoga's default keeps 1,024 parsed documents whatever their size: bounded by bytes instead.
    parserAndValidationCache: boundedParserCaches(DOCUMENT_CACHE_BYTES),
    context: graphQLContextFactory(services, logger),
    plugins: [
      useGraphiQL({
        enabled: config.graphiql,
        title: 'Measurement API',
        defaultQuery: DEFAULT_QUERY,
        endpoint: GRAPHQL_PATH,
        log: logger,
      }),
      useAccountPage({ services, trust, log: logger }),
      useErrorCodes(logger),
      // After useErrorCodes: a result gets its codes, then its cost.
      useCostExtensions(services.quota, clock),
      // Before the document limits: the contract checks the rate limit before validation.
      useRequestRateLimit(spendOne),
      useGraphQLLimits(),
      useConversionBudget(),
      useJsonMediaTypes({ bodyLimit: DEFAULT_BODY_LIMIT }),
      useSofaExecution({
        basePath: '/v1',
        routes: sofaRoutes(),
        customScalars: SCALAR_JSON_SCHEMAS,
        ignore: everyObjectType(schema),
      }),
    ],
  });
}

const DEFAULT_QUERY = `# Units and categories are public; conversions need a key:
# add the header {"Authorization": "Bearer msr_test_..."} below.
{
  categories { id name unitCount }
  unit(id: "ft") { id name symbol aliases }
  # convert(value: "12.5", from: "inch", to: "centimeter") { result { value unit } }
}
`;
