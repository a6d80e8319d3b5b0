import type { Config } from '../config';
import { ECB_ONLY, type HeldSources } from './currency/held-sources';
import { listSources, type SourceListing } from './currency/sources-listing';
import type { AccountStore } from './account-store';
import type { Principal } from './auth';
import type { Logger } from 'pino';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { createAccounts, type Accounts } from './accounts';
import { authenticate, unconfirmedPrincipal } from './auth';
import { ApiError } from '../domain/errors';
import { createConversions, type Conversions } from './conversions';
import { createKeyCache } from './key-cache';
import { createCurrencyServices } from './currency';
import type { CurrencyRegistry } from './currency/registry';
import type { RateListings } from './currency/listings';
import type { RateSeries } from './currency/series';
import { createSeriesExports, type SeriesExports } from './series-exports';
import { createSeriesLinks, type SeriesLinks } from './series-links';
import { historyFacts, precomputeOnRevision } from './currency/history';
import { healthReport, sourcesReaderOf, type HealthReport, type RateLimitBackend } from './health';
import { createKeyUseRecorder, type KeyUseRecorder } from './key-use';
import { createNames, type Names } from './names';
import { createQuotaMeter, type QuotaMeter } from './quota';
import { createRefusalRecorder, usageReport, type RefusalRecorder, type UsageReport } from './usage';
import type { Account } from './account-store';
import type { RatesReader } from './currency/rates';
import { createWebhooks, type Webhooks } from './webhooks';
import type { SecretBox } from '../domain/secret-box';
import { webhookUrlPolicy } from '../domain/webhook-urls';
import type { AgentAuthorization } from './oauth/agents';
import { agentServices, withAgentTokens, type CredentialResource } from './oauth';

/** The application's services, built once by app.ts from explicit dependencies. */
export interface AppServices {
  readonly config: Config;
  readonly store: AccountStore;
  readonly conversions: Conversions;
  /** Every currency the ECB has quoted, with the dates of its quotes. */
  readonly currencyRegistry: CurrencyRegistry;
  /** The latest rates as published, and any day's against any base, with amounts. */
  readonly rateListings: RateListings;
  /** Rates over a range, a page at a time, and the pages of exports. */
  readonly rateSeries: RateSeries;
  /** Complete series pages as written, kept per rates revision, and each key's exports in flight. */
  readonly seriesExports: SeriesExports;
  /** Signed links to series exports: made with a key, fetched without one until they expire. */
  readonly seriesLinks: SeriesLinks;
  readonly rates: RatesReader;
  /** The sources other than the ECB, as held, and which ones this instance serves. */
  readonly sources: HeldSources;
  /** Every served source with its publisher, schedule, terms and freshness (GET /v1/sources). */
  listSources(): SourceListing[];
  /** Unit, category and currency names in the supported languages (CLDR and ICU). */
  readonly names: Names;
  readonly quota: QuotaMeter;
  /** The account page's use cases: sign-up, log-in, sessions, an account's keys. */
  readonly accounts: Accounts;
  /** Notes keys' last use coarsely, off the request path. */
  readonly keyUse: KeyUseRecorder;
  /** Counts refusals (quota, rate limit) on the account's UTC day, off the request path. */
  readonly refusals: RefusalRecorder;
  /** The account's quota this month and its last 31 days. */
  usage(account: Account): Promise<UsageReport>;
  /** An account's webhook endpoints: add (the secret shown once), list with their deliveries, remove. */
  readonly webhooks: Webhooks;
  /** Checks an Authorization header (on /mcp an agent's access token too); throws UNAUTHORIZED or KEY_EXPIRED. */
  authenticate(authorization: string | null, resource?: CredentialResource): Promise<Principal>;
  /** Agents' OAuth (OAUTH_ISSUER): the authorization server, their tokens, the account page's list; undefined without. */
  readonly agents: AgentAuthorization | undefined;
  /**
   * Where a charge reads the keys revision in its own statement (PostgreSQL): the principal of a
   * key the cache found active, without reading the revision now (RequestContext confirms it).
   */
  unconfirmedPrincipal?(authorization: string | null): { principal: Principal; revision: number } | undefined;
  /** Reads the keys revision (once per turn, shared with the key cache's lookups). */
  keysRevision(): Promise<number>;
  health(): HealthReport;
}

/** What the services count; src/metrics.ts implements it for Prometheus. */
export interface ServiceMetrics {
  quotaRefused(plan: string, count: number): void;
  authFailed(reason: 'missing' | 'invalid'): void;
}

/** Where the account page's counters come from, and where health reads the limits are counted; src/http/limits/rate-limit.ts builds them (memory, or Redis with REDIS_URL). */
export interface LimiterFactory extends RateLimitBackend {
  create(name: string, points: number, windowSeconds: number): RateLimiterAbstract;
}

export interface ServiceDependencies {
  config: Config;
  store: AccountStore;
  rates: RatesReader;
  clock: () => Date;
  logger: Logger;
  limiters: LimiterFactory;
  /** Where quota refusals and refused keys are counted. */
  metrics?: ServiceMetrics;
  /** Seals webhook signing secrets (opened on first use). */
  webhookSecrets: () => SecretBox;
  /** The addresses a webhook URL's host resolves to, for the production URL rules. */
  resolveHost: (host: string) => Promise<string[]>;
  /** The publications of the sources other than the ECB, and which sources this instance serves (the ECB alone without). */
  sources?: HeldSources;
  /** How OAuth clients' metadata documents are fetched (data/client-documents.ts), when OAUTH_ISSUER is set. */
  fetchClientDocument?: (url: string | URL, init: RequestInit) => Promise<Response>;
}

export function createServices({
  config,
  store,
  rates,
  clock,
  logger,
  limiters,
  metrics,
  webhookSecrets,
  resolveHost,
  sources = ECB_ONLY,
  fetchClientDocument,
}: ServiceDependencies): AppServices {
  // The quote spans of the whole history, computed once per rates revision, for every currency use case.
  const facts = historyFacts(rates);
  precomputeOnRevision(rates, facts);
  const currency = createCurrencyServices(rates, clock, facts, sources);
  const keys = createKeyCache(store);
  const refusals = createRefusalRecorder(store, clock, (error) =>
    logger.warn({ err: error }, 'could not record refused requests in the daily usage'),
  );
  const quota = createQuotaMeter(
    store,
    clock,
    (account, count) => {
      metrics?.quotaRefused(account.plan, count);
      // A day counts refused requests (each refused field of a document; a batch once), not conversions.
      refusals.refused(account.id, 'quota');
    },
    // Retried until the database answers; the outage itself is logged once by the store.
    (error) => logger.debug({ err: error }, 'cancelling a charge of unknown outcome failed; retrying'),
    (revision) => keys.observe(revision),
  );
  const webhooks = createWebhooks({
    store: store.webhooks,
    secrets: webhookSecrets,
    resolveHost,
    policy: webhookUrlPolicy(config.apiEnv),
    clock,
    maxEndpoints: config.accountBounds.webhookEndpoints,
  });
  const keyUse = createKeyUseRecorder(store, clock, (error) => logger.warn({ err: error }, 'could not record the last use of API keys'));
  const agents = agentServices({ config, store, clock, webhookSecrets, fetchClientDocument });
  const keyAuth = keyAuthentication({ store, keys, keyUse, apiEnv: config.apiEnv, clock, metrics });
  return {
    config,
    store,
    rates,
    sources,
    listSources: () => listSources(rates, sources, clock()),
    currencyRegistry: currency.registry,
    rateListings: currency.listings,
    ...seriesServices({ config, store, rates, clock, webhookSecrets }, currency.series, keyUse),
    names: createNames(),
    quota,
    keyUse,
    refusals,
    usage: (account) => usageReport(store, account, clock()),
    webhooks,
    accounts: createAccounts({
      config,
      store,
      webhooks,
      clock,
      limiter: (name, points, seconds) => limiters.create(name, points, seconds),
    }),
    conversions: createConversions({
      converter: currency.converter,
      rates,
      quota,
      clock,
      onUnexpected: (error, requestId) => logger.error({ err: error, requestId }, 'unexpected error in batch item'),
    }),
    ...keyAuth,
    authenticate: withAgentTokens(keyAuth.authenticate, agents),
    agents,
    health: () => healthReport(rates, limiters, () => store.databaseHealth?.(), sourcesReaderOf(sources)),
  };
}

/** The series, its signed links (their use noted as the key's) and its exports, with their slots and cache. */
function seriesServices(
  { config, store, rates, clock, webhookSecrets }: Pick<ServiceDependencies, 'config' | 'store' | 'rates' | 'clock' | 'webhookSecrets'>,
  series: AppServices['rateSeries'],
  keyUse: ReturnType<typeof createKeyUseRecorder>,
): Pick<AppServices, 'rateSeries' | 'seriesLinks' | 'seriesExports'> {
  return {
    rateSeries: series,
    seriesLinks: createSeriesLinks({
      secrets: webhookSecrets,
      store,
      series,
      apiEnv: config.apiEnv,
      clock,
      onUse: (keyId) => keyUse.note(keyId),
      publicOrigin: config.publicOrigin,
      trustsLoopbackHost: config.trustProxy === undefined,
    }),
    seriesExports: createSeriesExports({
      rates,
      series,
      cacheBytes: config.exportCacheBytes,
      slots: { perHolder: config.exportsInFlight, perInstance: config.exportsPerInstance, memoryBytes: config.exportMemoryBytes },
    }),
  };
}

/** What a key's authentication needs: its cache, its use recorder, the environment it must be of. */
interface KeyAuthenticationParts {
  store: AccountStore;
  keys: ReturnType<typeof createKeyCache>;
  keyUse: ReturnType<typeof createKeyUseRecorder>;
  apiEnv: ServiceDependencies['config']['apiEnv'];
  clock: () => Date;
  metrics: ServiceDependencies['metrics'];
}

/** Authenticating a key (counted when it fails), its unconfirmed use where the charge confirms it, and the keys' revision. */
function keyAuthentication({
  store,
  keys,
  keyUse,
  apiEnv,
  clock,
  metrics,
}: KeyAuthenticationParts): Pick<AppServices, 'authenticate' | 'unconfirmedPrincipal' | 'keysRevision'> {
  return {
    authenticate: async (authorization) => {
      const principal = await authenticate(authorization, keys, apiEnv, clock).catch((error: unknown) => {
        metrics?.authFailed(authorization?.trim() ? 'invalid' : 'missing');
        throw error;
      });
      keyUse.note(principal.keyId);
      return principal;
    },
    ...(store.chargesReadKeysRevision
      ? {
          unconfirmedPrincipal: (authorization: string | null) => {
            const hit = unconfirmedPrincipal(authorization, keys, apiEnv, clock);
            if (hit) keyUse.note(hit.principal.keyId);
            return hit;
          },
        }
      : {}),
    // While the database is known to be away, fail at once (503) rather than spend another deadline.
    keysRevision: () => (store.knownUnreachable?.() ? Promise.reject(databaseAway()) : keys.confirm()),
  };
}

/** What a read refused while the database is away answers (the store's own faults say the same). */
function databaseAway(): ApiError {
  return new ApiError('SERVICE_UNAVAILABLE', 'The account database is unavailable; try again shortly.', { retryAfterSeconds: 5 });
}
