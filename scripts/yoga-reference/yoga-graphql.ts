import { useGraphQlJit } from '@envelop/graphql-jit';
import { createYoga } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { App } from '../../src/app';
import { GRAPHIQL_DEFAULT_QUERY } from '../../src/app';
import type { Config } from '../../src/config';
import { schema } from '../../src/graphql';
import type { GraphQLContext } from '../../src/graphql/context';
import { boundedParserCaches, DOCUMENT_CACHE_BYTES } from '../../src/graphql/document-cache';
import { toGraphQLError } from '../../src/http/answer/errors';
import type { ServerContext } from '../../src/http/front/request-context';
import { graphQLContextFactory } from '../../src/http/front/request-context';
import { useGraphiQL } from '../../src/http/graphiql/use-graphiql';
import { GRAPHQL_PATH } from '../../src/http/graphql/graphql-http';
import { yogaPages, type FrontHandler } from '../../src/http/graphql/yoga-answers';
import type { RateLimiters } from '../../src/http/limits/rate-limit';
import { requestSpending } from '../../src/http/limits/request-spending';
import { DEFAULT_BODY_LIMIT } from '../../src/http/routes';
import type { PersistedDocuments } from '../../src/services/persisted-documents';
import {
  useConversionBudget,
  useDocumentLimits,
  useJsonMediaTypes,
  usePersistedDocuments,
  usePrice,
  useTextPrice,
  useRequestRateLimit,
} from './request-plugins';
import { useCostExtensions, useErrorCodes, useGraphQLGetCaching } from './result-plugins';

/** What a front's /graphql handler is built from: the app composed, and the dependencies it was composed with. */
export interface GraphQLHandlerParts {
  app: App;
  config: Config;
  logger: Logger;
  limiters: RateLimiters;
  clock: () => Date;
  persistedDocuments: PersistedDocuments;
}

/** How the reference executes: graphql-js (the oracle of the parity suites), or graphql-jit through `@envelop/graphql-jit` (the bench's `graphql-yoga-jit` row). */
export interface YogaGraphQLOptions {
  jit?: boolean;
}

/**
 * graphql-jit's execution, compiled once per parsed document with the executor's compiler options
 * (src/graphql/prepared-documents.ts). Its results' `stringify` is JSON.stringify (graphql-jit
 * serializes with a schema only under `customJSONSerializer`), so the bytes are Yoga's either way.
 */
export const jitExecution = () => useGraphQlJit({ disablingCapturingStackErrors: true });

/**
 * The reference the GraphQL executor answers as: graphql-yoga's own handler (createYoga, its
 * parsing of requests, its parameter check, parse, validation, execution, masking and result
 * processors) on the same rate-limited schema, with the project's steps as Yoga plugins in the
 * order GRAPHQL_EXECUTION=yoga composed them, over the app's services, limiters, persisted
 * documents and clock; with `jit`, executed by graphql-jit (its plugin first: it only sets the
 * execute function, which runs once every plugin's onExecute has). Its Response is finished by the
 * app's one finish (yogaPages), as every answer of the front is, so the headers every answer
 * carries are the finish's on both sides.
 */
export function yogaGraphQLHandler(
  { app, config, logger, limiters, clock, persistedDocuments }: GraphQLHandlerParts,
  options: YogaGraphQLOptions = {},
): FrontHandler {
  const { services } = app;
  const spending = requestSpending({ limiters, metrics: app.metrics, refusals: services.refusals });
  const yoga = createYoga<ServerContext, GraphQLContext>({
    schema: spending.fieldRateLimits.transformer(schema),
    graphqlEndpoint: GRAPHQL_PATH,
    healthCheckEndpoint: '/ yoga health check disabled',
    landingPage: false,
    // useJsonMediaTypes reads the body within the REST routes' limit.
    maxRequestBodySize: false,
    cors: false,
    logging: false,
    graphiql: false,
    maskedErrors: { maskError: (error) => toGraphQLError(error) },
    parserAndValidationCache: boundedParserCaches(DOCUMENT_CACHE_BYTES),
    context: graphQLContextFactory(services, logger),
    plugins: [
      ...(options.jit ? [jitExecution()] : []),
      useGraphiQL({
        enabled: config.graphiql,
        title: 'Measurement API',
        defaultQuery: GRAPHIQL_DEFAULT_QUERY,
        endpoint: GRAPHQL_PATH,
        compression: config.compression,
        log: logger,
      }),
      useErrorCodes(logger),
      // After useErrorCodes: a result gets its codes, then its cost.
      useCostExtensions(services.quota, clock),
      // After useCostExtensions: a cacheable GET's body leaves the request's counters out.
      useGraphQLGetCaching(() => ({
        latestMaxAge: services.rates.latestMaxAgeSeconds(),
        newestPublication: services.rates.latest()?.date ?? null,
      })),
      // Before the document limits: the rate limit is checked before validation.
      useRequestRateLimit(spending),
      // Before the persisted documents' registration at execution: a refused document registers nothing.
      usePrice(spending),
      // Between the two: a refused request registers nothing, and a hash's document meets every limit a sent one does.
      usePersistedDocuments(persistedDocuments),
      useDocumentLimits(),
      // After the document limits' check of the text, before it is parsed.
      useTextPrice(spending),
      useConversionBudget(),
      useJsonMediaTypes({ bodyLimit: DEFAULT_BODY_LIMIT }),
    ],
  });
  return yogaPages({ yoga, finish: app.front.finish });
}
