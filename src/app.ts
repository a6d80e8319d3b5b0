import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { HeldSources } from './services/currency/held-sources';
import type { Logger } from 'pino';
import type { GraphQLSchema } from 'graphql';
import type { Config } from './config';
import type { AccountStore } from './services/account-store';
import type { GraphQLContext } from './graphql/context';
import { schema } from './graphql';
import { everyObjectType } from './graphql/object-types';
import { SCALAR_JSON_SCHEMAS } from './graphql/scalars';
import { parseTrustProxy, type TrustProxy } from './domain/client-ip';
import { useGraphiQL } from './http/graphiql/use-graphiql';
import { toGraphQLError } from './http/answer/errors';
import { openApiText } from './http/openapi/openapi';
import { Endpoints } from './http/rest/endpoint';
import { createEdge } from './http/rest/edge';
import { createFinish } from './http/front/finish';
import type { Front } from './http/front/node-server';
import { useNoGraphQLOverYoga, yogaPages } from './http/graphql/yoga-answers';
import { graphQLAnswers } from './http/graphql/graphql-answers';
import { GRAPHQL_PATH } from './http/graphql/graphql-http';
import { createGraphQLExecutor } from './http/graphql/graphql-executor';
import {
  graphQLContextFactory,
  requestContexts,
  requestContextServices,
  type RequestOrigin,
  type ServerContext,
} from './http/front/request-context';
import { sofaRoutes } from './http/routes';
import { spendBeforeParse, spendPrice, spendTextPrice } from './http/graphql/request-rate-limit';
import { boundedParserCaches, DOCUMENT_CACHE_BYTES } from './graphql/document-cache';
import type { RateLimiters } from './http/limits/rate-limit';
import { requestSpending, type RequestSpending } from './http/limits/request-spending';
import { useSofaExecution } from './http/rest/sofa-execution';
import { useAccountPage } from './pages/account-page';
import { mcpAnswers, mcpHandler } from './mcp/http';
import { documentRunner } from './mcp/run-document';
import { useFrontDoor } from './pages/front/front-door';
import { createMetrics, type Metrics } from './metrics';
import { createServices, type AppServices } from './services';
import type { RatesReader } from './services/currency/rates';
import type { PersistedDocuments } from './services/persisted-documents';
import { openPersistedDocuments } from './data/persisted/open-persisted-documents';
import type { SecretBox } from './domain/secret-box';
import { webhookSecretBox } from './data/webhook-secret-key';
import { resolveHost } from './data/guarded-connection';
import { clientDocumentFetch } from './data/client-documents';
import { webhookUrlPolicy } from './domain/webhook-urls';
import { oauthAnswers } from './http/oauth/oauth-http';
import { CLIENT_DOCUMENT_MAX_BYTES } from './services/oauth/oauth-provider';

/** A client's metadata document is read within this long (oidc-provider abandons its own fetch at 2.5 s). */
const CLIENT_DOCUMENT_TIMEOUT_MS = 2_500;

export interface AppDependencies {
  config: Config;
  store: AccountStore;
  logger: Logger;
  rates: RatesReader;
  /** The publications of the sources other than the ECB, and which sources to serve; the ECB alone without. */
  sources?: HeldSources;
  /** Request rate limiters (memory, or Redis for several instances): see createRateLimiters. */
  limiters: RateLimiters;
  /** The time, for everything that depends on it ("today" in Berlin, quota months). */
  clock?: () => Date;
  /** Where requests, refusals and the rates' age are counted; a fresh registry by default. */
  metrics?: Metrics;
  /** Persisted GraphQL documents (APQ and the operator's manifest); by default this instance's own, with the configured manifest. */
  persistedDocuments?: PersistedDocuments;
  /** Seals webhook signing secrets; WEBHOOK_SECRET_KEY or the development key file by default (webhook-secret-key.ts). */
  webhookSecrets?: () => SecretBox;
  /** Certificate authorities trusted for OAuth clients' metadata documents besides the system's (tests serve them on loopback). */
  clientDocumentCa?: string;
}

export interface App {
  services: AppServices;
  /** What the one front (createHttpServer) dispatches to and finishes every answer with. */
  front: Front;
  metrics: Metrics;
}

/**
 * Composes the server from explicit dependencies; main.ts and the tests listen with createHttpServer.
 * The steps: the services, the request rate limit (its spending by every surface and the fields'
 * directive on the schema), the GraphQL executor, Yoga for the pages and SOFA, the one finish, and the
 * handlers the front dispatches to.
 */
export function createApp({
  config,
  store,
  logger,
  rates,
  sources,
  limiters,
  clock = () => new Date(),
  metrics = createMetrics(),
  persistedDocuments,
  webhookSecrets = webhookSecretBox(config),
  clientDocumentCa,
}: AppDependencies): App {
  const fetchClientDocument = clientDocuments(config, clientDocumentCa);
  const parts = { config, store, rates, clock, logger, limiters, metrics, webhookSecrets, resolveHost, sources };
  const services = createServices({ ...parts, fetchClientDocument });
  metrics.watchRates(() => rates.status(), clock);
  const trust = parseTrustProxy(config.trustProxy);
  /** The request rate limit: each request's bucket decided once, every spend on its record, the fields' directive. */
  const spending = requestSpending({ limiters, metrics, refusals: services.refusals });
  const executable = spending.fieldRateLimits.transformer(schema);
  /** Each request's context, minted once by the front. */
  const contexts = requestContexts(requestContextServices(services), trust);
  const contextOf = (origin: RequestOrigin) => {
    const context = contexts(origin);
    context.spendsWith((points) => spending.spendMore(context, points));
    return context;
  };
  const openapi = openApiText(schema, config.publicOrigin?.replace(/\/$/, ''));
  /** Each route of the table compiled once. */
  const endpoints = new Endpoints(schema, () => services.rates.latestMaxAgeSeconds());
  const documents = persistedDocuments ?? openPersistedDocuments(config, { shared: false });
  const yoga = createYogaServer({ config, services, executable, logger, trust });
  const finish = createFinish({
    services,
    log: logger,
    clock,
    metrics,
    compression: config.compression,
    streamProgressTimeoutMs: config.streamProgressTimeoutMs,
  });
  const edge = createEdge({
    schema,
    endpoints,
    services,
    finish,
    spending,
    log: logger,
    clock,
    metrics,
    yoga,
    execution: config.restExecution,
    openapi: () => openapi,
  });
  const execute = graphQLExecutor(executable, services, spending, documents, { log: logger, clock });
  const pages = yogaPages({ yoga, finish });
  const graphql = graphQLAnswers({ finish, execute, pages, graphiql: config.graphiql });
  const mcp = mcpAnswers(
    mcpHandler({
      runnerFor: documentRunner(execute),
      spending,
      allowedHosts: config.mcpAllowedHosts,
      allowedOrigins: config.mcpAllowedOrigins,
      trust,
      log: logger,
    }),
    finish,
  );
  const oauth = oauthAnswers(services.agents, finish, edge);
  return { services, front: { contextOf, finish, edge, graphql, pages, mcp, oauth, metrics }, metrics };
}

/** How OAuth clients' metadata documents are fetched: under the webhook URL rules of the environment, bounded in time and size. */
function clientDocuments(config: Config, ca: string | undefined) {
  return clientDocumentFetch({
    policy: webhookUrlPolicy(config.apiEnv),
    egress: config.egressProxy,
    timeoutMs: CLIENT_DOCUMENT_TIMEOUT_MS,
    maxBytes: CLIENT_DOCUMENT_MAX_BYTES * 2,
    ...(ca ? { ca } : {}),
  });
}

interface YogaServerParts {
  config: Config;
  services: AppServices;
  /** The schema with its fields' rate limits. */
  executable: typeof schema;
  logger: Logger;
  trust: TrustProxy;
}

/**
 * Yoga on the rate-limited schema, for what its adapter serves (GraphiQL and its assets, the account
 * pages, the front door) and for SOFA's execution of REST routes (REST_EXECUTION=sofa); GraphQL
 * requests never reach it (graphql-answers.ts).
 */
function createYogaServer({
  config,
  services,
  executable,
  logger,
  trust,
}: YogaServerParts): YogaServerInstance<ServerContext, GraphQLContext> {
  return createYoga<ServerContext, GraphQLContext>({
    schema: executable,
    graphqlEndpoint: GRAPHQL_PATH,
    // Yoga answers any URL ending in its health endpoint; a path with a literal space can never be requested.
    healthCheckEndpoint: '/ yoga health check disabled',
    landingPage: false,
    // Yoga reads no client's body: the front reads GraphQL's, the edge REST's (SOFA is handed it checked).
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
        defaultQuery: GRAPHIQL_DEFAULT_QUERY,
        endpoint: GRAPHQL_PATH,
        compression: config.compression,
        log: logger,
      }),
      useAccountPage({ services, trust, log: logger }),
      useFrontDoor({ graphiql: config.graphiql, openApiPath: '/openapi.json', compression: config.compression, log: logger }),
      useSofaExecution({
        basePath: '/v1',
        routes: sofaRoutes(),
        customScalars: SCALAR_JSON_SCHEMAS,
        ignore: everyObjectType(schema),
      }),
      useNoGraphQLOverYoga(),
    ],
  });
}

/**
 * The document GraphiQL opens on: public units and the latest ECB rates side by side, run as it is,
 * and a unit and a currency conversion that run once a key is in the Headers tab. No line is longer
 * than 50 characters, so the editor shows every line whole at a laptop's width (half of a 1280 px
 * window) without scrolling sideways; Monaco's Ctrl-/ toggles the # of the lines selected.
 */
export const GRAPHIQL_DEFAULT_QUERY = `# Units, categories and the latest ECB rates are
# public: run this as it is (Ctrl-Enter).
#
# Conversions need a key (create one at /account).
# Put it in the Headers tab below:
#   {"Authorization": "Bearer msr_test_..."}
# then select the convert lines and press Ctrl-/
# (Cmd-/ on a Mac) to remove their #.
{
  unit(id: "ft") { id name symbol aliases }
  categories { id name unitCount }
  latestRates { date base rates }
  # convert(value: "12.5", from: "inch",
  #   to: "centimeter") { result { value unit } }
  # convertCurrency(value: "100", from: "USD",
  #   to: "JPY", minorUnits: true) {
  #   result { value unit }
  #   rate { value date source }
  # }
}
`;

/** The GraphQL executor, each document's price spent on the request's limit before it runs. */
function graphQLExecutor(
  executable: GraphQLSchema,
  services: AppServices,
  spending: RequestSpending,
  documents: PersistedDocuments,
  { log, clock }: { log: Logger; clock: () => Date },
) {
  return createGraphQLExecutor({
    schema: executable,
    services,
    log,
    clock,
    spendBeforeParse: (context) => spendBeforeParse(context, spending),
    spendTextPrice: (context, text) => spendTextPrice(context, text, spending),
    spendPrice: (context, price) => spendPrice(context, price, spending),
    documents,
    cacheFacts: () => ({ latestMaxAge: services.rates.latestMaxAgeSeconds(), newestPublication: services.rates.latest()?.date ?? null }),
  });
}
