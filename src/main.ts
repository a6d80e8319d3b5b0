import { createServer } from 'node:http';
import { createApp } from './app';
import { ConfigError, loadConfig, type Config } from './config';
import { openStore } from './data/open-store';
import { createRatesService } from './data/rates';
import { createRateLimiters } from './http/rate-limit';
import { createLogger } from './logger';

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

const config = readConfig();
const logger = createLogger(config.logLevel);
const store = openStore(config);
const rates = createRatesService({ config, logger });
// Serves at once from the cache; RATES_FILE and the ECB are loaded in the background.
await rates.start();
const limiters = await createRateLimiters({
  publicPerMinute: config.publicRateLimit,
  keyPerSecond: config.keyRateLimit,
  redisUrl: config.redisUrl,
  onRedisError: (error) => logger.warn({ err: error }, 'Redis unavailable: counting rate limits in this instance until it is back'),
});
const { handler } = createApp({ config, store, logger, rates, limiters });
const server = createServer(handler);
server.keepAliveTimeout = 65_000;

server.listen(config.port, config.host, () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info({ host: config.host, port, apiEnv: config.apiEnv }, `Measurement API listening on http://${config.host}:${port}`);
});

let stopping = false;
function shutdown(signal: string): void {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  server.close(async () => {
    await rates.stop();
    await limiters.close();
    await store.close();
    process.exit(0);
  });
  server.closeIdleConnections();
  setTimeout(() => {
    server.closeAllConnections();
  }, 5_000).unref();
}
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
