import pino from 'pino';
import { runAdmin } from '../src/cli/admin';
import { ConfigError, loadConfig } from '../src/config';
import { DatabaseStartError, migrateDatabase, openStore, type DatabaseMigration } from '../src/data/open-store';
import { createRatesService } from '../src/data/rates';
import { createSourceRatesService } from '../src/data/sources';

/**
 * `npm run --silent admin -- <command>`: load the configuration, open the store, run, close.
 * Whatever fails, the process ends with one JSON error line on stderr and exit code 1.
 */
function fail(code: string, error: unknown): number {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`${JSON.stringify({ error: { code, message } })}\n`);
  return 1;
}

async function main(): Promise<number> {
  let config;
  let store;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    return fail(error instanceof ConfigError ? 'INVALID_CONFIGURATION' : 'INTERNAL', error);
  }
  // Every command works on a fresh database: the schema is applied first (under BEGIN IMMEDIATE or
  // PostgreSQL's advisory lock, as a starting server does), and `db migrate` reports what this applied.
  let migration: DatabaseMigration;
  try {
    migration = await migrateDatabase(config);
  } catch (error) {
    return fail(error instanceof DatabaseStartError ? 'SERVICE_UNAVAILABLE' : 'INTERNAL', error);
  }
  try {
    store = openStore(config);
  } catch (error) {
    return fail('INTERNAL', error);
  }
  let exitCode: number;
  try {
    // Logs go to stderr (stdout carries only the JSON result), and only errors.
    const logger = pino({ level: 'error' }, pino.destination({ dest: 2, sync: true }));
    const rates = () => createRatesService({ config, logger });
    const sources = () => createSourceRatesService({ config, logger });
    const stdin = async () => {
      if (process.stdin.isTTY) return undefined;
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    };
    exitCode = await runAdmin(process.argv.slice(2), {
      config,
      store,
      migrate: async () => migration,
      stdout: process.stdout,
      stderr: process.stderr,
      rates,
      sources,
      stdin,
      progress: process.stderr.isTTY,
    });
  } catch (error) {
    exitCode = fail('INTERNAL', error);
  }
  try {
    await store.close();
  } catch (error) {
    if (exitCode === 0) exitCode = fail('INTERNAL', error);
  }
  return exitCode;
}

// exitCode rather than exit(): lets stdout drain when it is a pipe.
process.exitCode = await main().catch((error: unknown) => fail('INTERNAL', error));
