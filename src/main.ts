import { createServer } from 'node:http';
import { createApp } from './app';
import { ConfigError, loadConfig, type Config } from './config';
import { openStore } from './data/open-store';
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
const { yoga } = createApp({ config, store, logger });
const server = createServer(yoga);
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
