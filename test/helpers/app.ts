import { mkdtempSync, rmSync } from 'node:fs';
import type { HeldSources } from '../../src/services/currency/held-sources';
import type { Logger } from 'pino';
import os from 'node:os';
import path from 'node:path';
import { createApp, type App } from '../../src/app';
import { loadConfig, type Config } from '../../src/config';
import { openStore } from '../../src/data/open-store';
import type { Account, AccountStore } from '../../src/services/account-store';
import { keyEnvFor } from '../../src/domain/keys';
import type { PlanId } from '../../src/domain/plans';
import { schema } from '../../src/graphql';
import { openApiText } from '../../src/http/openapi/openapi';
import { createRateLimiters } from '../../src/http/limits/rate-limit';
import { createLogger } from '../../src/logger';
import type { RatesReader } from '../../src/services/currency/rates';
import type { PersistedDocuments } from '../../src/services/persisted-documents';
import { openPersistedDocuments } from '../../src/data/persisted/open-persisted-documents';
import type { FrontHandler } from '../../src/http/graphql/yoga-answers';
import { OpenApiContract } from './contract';
import type { GraphQLHandlerParts } from '../../scripts/yoga-reference/yoga-graphql';
import { frontServer, rawRequest, wireTarget, type LoopbackInit } from './http';
import { tableRates } from './table-rates';

export interface CallOptions {
  key?: string;
  body?: unknown;
  /** A raw body, sent as is (for malformed JSON and size tests). */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface TestApp {
  app: App;
  config: Config;
  store: AccountStore;
  /** The app's node:http front (the listener main.ts runs), on a loopback port: `http://127.0.0.1:PORT`. */
  origin: string;
  /** One request through the front over loopback, sending exactly the headers given (see loopbackFetch). */
  fetch(target: string, init?: LoopbackInit): Promise<Response>;
  /** A fresh account with this plan and a key valid for the app's environment. */
  createKey(plan?: PlanId): Promise<string>;
  /** The same, with the account (to set or read its usage). */
  createAccountKey(plan?: PlanId): Promise<{ key: string; account: Account; keyId: string }>;
  /** One REST call over loopback HTTP through the app's listener; the response is checked against /openapi.json. */
  call(method: string, url: string, options?: CallOptions): Promise<{ status: number; headers: Headers; body: any; text: string }>;
  /** POST /graphql through the front with a query, its variables and a key. */
  graphql(query: string, variables?: Record<string, unknown>, key?: string): Promise<{ status: number; body: any }>;
  /** POST /graphql through the front with a key, variables and an Accept header of choice; the answer's headers too. */
  postGraphQL(
    query: string,
    options?: { key?: string; variables?: Record<string, unknown>; accept?: string },
  ): Promise<{ status: number; headers: Headers; body: any }>;
  close(): Promise<void>;
}

/** Builds the app on a temporary data directory, with logs silenced, as main.ts would. */
export interface TestAppOverrides {
  store?: AccountStore;
  /** The rates the app reads; none loaded by default. */
  rates?: RatesReader;
  clock?: () => Date;
  /** Where the app logs (silent by default). */
  logger?: Logger;
  /** The persisted GraphQL documents (APQ); by default the app's own, in memory. */
  persistedDocuments?: PersistedDocuments;
  /** The sources other than the ECB (the ECB alone by default). */
  sources?: HeldSources;
  /** Certificate authorities trusted for OAuth clients' metadata documents (a loopback https server's). */
  clientDocumentCa?: string;
  /** Replaces the front's /graphql handler, built from the app and its dependencies (the parity suites' Yoga: scripts/yoga-reference/). */
  graphql?: (parts: GraphQLHandlerParts) => FrontHandler;
}

export async function createTestApp(env: Record<string, string> = {}, overrides: TestAppOverrides = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'measurement-test-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', ...env });
  const store = overrides.store ?? openStore(config);
  const rates = overrides.rates ?? tableRates([]);
  const limiters = await createRateLimiters({ publicPerMinute: config.publicRateLimit, keyPerSecond: config.keyRateLimit });
  const logger = overrides.logger ?? createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
  const clock = overrides.clock ?? (() => new Date());
  // A handler put in the executor's place shares the app's persisted documents, made here to hand it.
  const persistedDocuments =
    overrides.persistedDocuments ?? (overrides.graphql ? openPersistedDocuments(config, { shared: false }) : undefined);
  const composed = createApp({
    config,
    store,
    rates,
    limiters,
    logger,
    clock,
    ...(persistedDocuments ? { persistedDocuments } : {}),
    ...(overrides.sources ? { sources: overrides.sources } : {}),
    ...(overrides.clientDocumentCa ? { clientDocumentCa: overrides.clientDocumentCa } : {}),
  });
  const app: App =
    overrides.graphql && persistedDocuments
      ? {
          ...composed,
          front: { ...composed.front, graphql: overrides.graphql({ app: composed, config, logger, limiters, clock, persistedDocuments }) },
        }
      : composed;
  // The document /openapi.json serves, read directly so that fetching it spends no rate limit.
  const contract = OpenApiContract.of(openApiText(schema));
  // Every request of a test goes over loopback HTTP through the node:http front main.ts runs.
  const server = frontServer(app, { logger, ...(config.trustProxy === undefined ? {} : { trustProxy: config.trustProxy }) });
  const origin = await server.origin();

  const createAccountKey: TestApp['createAccountKey'] = async (plan = 'free') => {
    const account = await store.createAccount({ plan });
    const created = await store.createKey(account.id, keyEnvFor(config.apiEnv));
    return { key: created.key, account, keyId: created.record.id };
  };

  const postGraphQL: TestApp['postGraphQL'] = async (query, options = {}) => {
    const response = await server.fetch('/graphql', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(options.accept ? { accept: options.accept } : {}),
        ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
      },
      body: JSON.stringify({ query, variables: options.variables ?? {} }),
    });
    return { status: response.status, headers: response.headers, body: await response.json() };
  };

  const call: TestApp['call'] = async (method, url, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key !== undefined) headers['authorization'] = `Bearer ${options.key}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const answer = await rawRequest(origin, method, url, headers, body);
    const bodyless = answer.status === 204 || answer.status === 304 || method === 'HEAD';
    // Checked against what was sent: a `#` in `url` went out as `%23`, part of the path, not a fragment.
    await contract.check(
      method,
      wireTarget(url),
      new Response(bodyless ? null : answer.text, { status: answer.status, headers: answer.headers }),
    );
    const json = answer.headers.get('content-type')?.startsWith('application/json') ?? false;
    return {
      status: answer.status,
      headers: answer.headers,
      body: answer.text === '' || !json ? undefined : JSON.parse(answer.text),
      text: answer.text,
    };
  };

  return {
    app,
    config,
    store,
    origin,
    fetch: server.fetch,
    async createKey(plan = 'free') {
      return (await createAccountKey(plan)).key;
    },
    createAccountKey,
    call,
    async graphql(query, variables = {}, key) {
      const { status, body } = await postGraphQL(query, { variables, ...(key ? { key } : {}) });
      return { status, body };
    },
    postGraphQL,
    async close() {
      await server.close();
      await limiters.close();
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
