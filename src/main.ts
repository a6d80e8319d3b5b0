import { setFlagsFromString } from 'node:v8';
import { createApp } from './app';
import { ConfigError, configWarnings, loadConfig, type Config } from './config';
import { DatabaseStartError, migrateDatabase, openStore } from './data/open-store';
import { createRatesService, RatesFileError } from './data/rates';
import { createSourceRatesService } from './data/sources';
import { parseTrustProxy } from './domain/client-ip';
import { listenErrorMessage, startLine } from './http/front/listen';
import { createHttpServer } from './http/front/node-server';
import { createRateLimiters } from './http/limits/rate-limit';
import { createLogger, flushLogSync } from './logger';
import { redisOutageLog } from './redis-outage';
import { createMetrics } from './metrics';
import { openPersistedDocuments } from './data/persisted/open-persisted-documents';
import { PersistedManifestError } from './data/persisted/manifest';
import { postWebhook } from './data/webhook-http';
import { webhookSecretBox } from './data/webhook-secret-key';
import { webhookUrlPolicy } from './domain/webhook-urls';
import { createWebhookDispatcher } from './services/webhook-dispatcher';

/** Reads the configuration, builds the app, listens, and shuts down cleanly on SIGTERM/SIGINT. */
function readConfig(): Config {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}

/** Connects to the database and applies its migrations before anything listens; one line and exit 1 when it cannot. */
async function prepareDatabase(): Promise<void> {
  try {
    const migration = await migrateDatabase(config);
    if (migration.applied.length > 0) logger.info(migration, 'database schema migrated');
  } catch (error) {
    if (!(error instanceof DatabaseStartError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}

/** The persisted GraphQL documents: a manifest with a wrong entry stops the start (one line, exit 1). */
function openDocuments() {
  try {
    const documents = openPersistedDocuments(config, { redisWatch: redisWatch('persisted documents') });
    if (documents.manifestSize > 0)
      logger.info(
        { documents: documents.manifestSize, file: config.persistedDocuments.manifestFile },
        'persisted documents manifest loaded',
      );
    return documents;
  } catch (error) {
    if (!(error instanceof PersistedManifestError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}

// Node 24's V8 lets the old generation grow further between full collections than Node 20's did:
// a flood of distinct GraphQL documents (each parsed into a few hundred times its text, then
// dropped by the bounded document caches) left hundreds of MB of garbage resident, past the
// contract's bound on memory growth. A fixed growth factor of 1.5 keeps the heap near what Node 20
// holds, for somewhat more full collections. V8 reads it at every collection, so setting it here
// works (unlike the young generation's size, which npm start sets on the command line); a
// --heap-growing-percent on node's command line wins (NODE_OPTIONS refuses that flag).
if (!process.execArgv.some((arg) => arg.startsWith('--heap-growing-percent'))) setFlagsFromString('--heap-growing-percent=50');

const config = readConfig();
const logger = createLogger(config.logLevel);
for (const warning of configWarnings(process.env)) logger.warn(warning);
// Webhook secrets are sealed at rest, and production never keeps their key on the server's disk:
// without WEBHOOK_SECRET_KEY the API serves as ever, and adding or signing a webhook, or making or opening a signed series link, says why not.
if (config.apiEnv === 'production' && !config.webhookSecretKey) {
  logger.warn(
    'WEBHOOK_SECRET_KEY is not set: webhook endpoints cannot be added or signed, nor signed series links made or opened, until it is (32 bytes as base64 or hex, e.g. openssl rand -base64 32)',
  );
}
await prepareDatabase();
const store = openStore(config, { logger });
const metrics = createMetrics();
// One line when Redis goes away and one when it is back, whichever connection notices first.
const redisWatch = redisOutageLog(logger);
// Before the rates: a wrong manifest stops the start at once.
const persistedDocuments = openDocuments();
const rates = createRatesService({ config, logger, redisWatch: redisWatch('rates'), onFetchFailure: () => metrics.ecbFetchFailed() });
// Serves at once from the cache; the ECB is fetched in the background. A RATES_FILE that cannot be
// used stops the start (one line, exit 1): serving without the rates asked for would hide the mistake.
await rates.start().catch((error: unknown) => {
  if (!(error instanceof RatesFileError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
});
// The other sources: what the database holds is served at once, each publisher fetched on its own loop.
const sources = createSourceRatesService({ config, logger });
await sources.start();
const limitsWatch = redisWatch('rate limits');
const limiters = await createRateLimiters({
  publicPerMinute: config.publicRateLimit,
  keyPerSecond: config.keyRateLimit,
  redisUrl: config.redisUrl,
  onRedisDown: (error) => limitsWatch.down(error),
  onRedisBack: () => limitsWatch.back(),
});
const webhookSecrets = webhookSecretBox(config);
const { front, services } = createApp({ config, store, logger, rates, sources, limiters, metrics, persistedDocuments, webhookSecrets });
// The webhooks' outbox: claimed and posted in the background, each attempt under 5 s.
const webhookPolicy = webhookUrlPolicy(config.apiEnv);
const webhooks = createWebhookDispatcher({
  store: store.webhooks,
  secrets: webhookSecrets,
  post: (url, headers, body) => postWebhook(url, headers, body, { policy: webhookPolicy, egress: config.egressProxy, timeoutMs: 5_000 }),
  clock: () => new Date(),
  log: logger,
  sweepMs: config.webhookSweepMs,
});
webhooks.start();
const server = createHttpServer({
  front,
  logger,
  metricsAccess: config.metrics,
  trust: parseTrustProxy(config.trustProxy),
  maxConnections: config.maxConnections,
  keepAliveTimeoutSeconds: config.keepAliveTimeoutSeconds,
});

// A busy port, a privileged one or an address this machine does not have: one line naming PORT/HOST, exit 1.
// It is the last line of the start: the background work that logs stops first, and what the logger
// still buffers is written before it.
const onListenError = (error: NodeJS.ErrnoException) => {
  const line = listenErrorMessage(error, config.host, config.port);
  void Promise.allSettled([webhooks.stop(), rates.stop(), sources.stop()]).then(() => {
    flushLogSync(logger);
    process.stderr.write(`${line}\n`);
    process.exit(1);
  });
};
server.once('error', onListenError);
server.listen(config.port, config.host, () => {
  server.off('error', onListenError);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info({ host: config.host, port, apiEnv: config.apiEnv }, startLine(config.host, port, { graphiql: config.graphiql }));
});

/** In-flight requests get this long to finish; then their connections are cut. */
const DRAIN_MS = 10_000;
/** Closing the stores gets this long more; then the process exits anyway (with 1). */
const CLOSE_MS = 5_000;

let stopping = false;
function shutdown(signal: string): void {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down: no new connections, draining requests in flight');
  const cut = setTimeout(() => {
    logger.warn({ afterMs: DRAIN_MS }, 'requests still in flight: closing their connections');
    server.closeAllConnections();
  }, DRAIN_MS);
  cut.unref();
  server.close(async () => {
    clearTimeout(cut);
    setTimeout(() => {
      logger.error({ afterMs: CLOSE_MS }, 'stores did not close in time: exiting anyway');
      process.exit(1);
    }, CLOSE_MS).unref();
    // What the last requests noted (refusals by day, keys' last use) is written before the store
    // closes; a webhook attempt in flight finishes (a delivery not attempted stays in the outbox).
    await Promise.allSettled([services.refusals.flush(), services.keyUse.flush(), webhooks.stop()]);
    await Promise.allSettled([rates.stop(), sources.stop(), limiters.close(), store.close(), persistedDocuments.close()]).then(
      (results) => {
        for (const result of results) if (result.status === 'rejected') logger.warn({ err: result.reason }, 'closing a store failed');
      },
    );
    logger.info('stopped');
    logger.flush?.();
    process.exit(0);
  });
  // Keep-alive connections with no request in flight are closed now; busy ones once answered
  // (node:http would otherwise keep them for keepAliveTimeout).
  server.closeIdleConnections();
  setInterval(() => server.closeIdleConnections(), 100).unref();
}
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
