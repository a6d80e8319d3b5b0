/**
 * The app configurations scripts/bench.ts can measure: the SQLite default, or PostgreSQL for the
 * account store and/or Redis for the rate limits. The bench starts neither server: it uses
 * TEST_DATABASE_URL / TEST_REDIS_URL (as the PostgreSQL/Redis test suites do), with a database of
 * its own per configuration, created for the run and dropped afterwards, and counter keys under a
 * prefix of its own in that Redis database.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const CONFIG_NAMES = ['sqlite', 'sqlite+redis', 'postgres', 'postgres+redis'] as const;
export type ConfigName = (typeof CONFIG_NAMES)[number];

export interface BenchConfig {
  name: ConfigName;
  database: 'sqlite' | 'postgres';
  redis: boolean;
}

export function configOf(name: string): BenchConfig {
  if (!(CONFIG_NAMES as readonly string[]).includes(name))
    throw new Error(`unknown configuration '${name}' (configurations: ${CONFIG_NAMES.join(', ')})`);
  const [database, redis] = name.split('+') as ['sqlite' | 'postgres', string | undefined];
  return { name: name as ConfigName, database, redis: redis === 'redis' };
}

/**
 * The configurations a command line asks for: `--configs a,b` (compared in one run), or one from
 * `--database` and `--redis`; the SQLite default when none. Checked before anything starts,
 * environment included: a run must not fail after minutes of load for want of a URL.
 */
export function configsFrom(
  values: { configs?: string | undefined; database?: string | undefined; redis?: boolean | undefined },
  env: NodeJS.ProcessEnv,
): BenchConfig[] {
  if (values.configs !== undefined && (values.database !== undefined || values.redis))
    throw new Error('--configs cannot be combined with --database or --redis');
  let configs: BenchConfig[];
  if (values.configs !== undefined) {
    const names = values.configs.split(',').map((name) => name.trim());
    if (new Set(names).size !== names.length) throw new Error(`--configs names a configuration twice (${values.configs})`);
    configs = names.map(configOf);
  } else {
    const database = values.database ?? 'sqlite';
    if (database !== 'sqlite' && database !== 'postgres') throw new Error(`--database must be sqlite or postgres (got ${database})`);
    configs = [configOf(values.redis ? `${database}+redis` : database)];
  }
  if (configs.some((c) => c.database === 'postgres') && !env['TEST_DATABASE_URL'])
    throw new Error(
      'a postgres configuration needs TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test): the bench creates a database of its own there',
    );
  if (configs.some((c) => c.redis) && !env['TEST_REDIS_URL'])
    throw new Error('a redis configuration needs TEST_REDIS_URL (e.g. redis://127.0.0.1:6379/15)');
  return configs;
}

/** What the app's child is told to connect to for one configuration. */
export interface ConfigConnection {
  databaseUrl?: string;
  redisUrl?: string;
  /** The rate-limit counters' prefix: this run's own, so runs and tests never share a counter. */
  redisPrefix?: string;
}

/** A configuration's database (created empty now) and Redis; `drop` removes the database. */
export async function connectConfig(
  config: BenchConfig,
  env: NodeJS.ProcessEnv,
): Promise<{ connection: ConfigConnection; drop(): Promise<void> }> {
  const connection: ConfigConnection = {};
  if (config.redis) {
    connection.redisUrl = env['TEST_REDIS_URL']!;
    connection.redisPrefix = `msr:bench:${randomBytes(4).toString('hex')}`;
  }
  if (config.database !== 'postgres') return { connection, drop: async () => undefined };
  const adminUrl = env['TEST_DATABASE_URL']!;
  const name = `bench_${randomBytes(6).toString('hex')}`;
  await admin(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  connection.databaseUrl = url.toString();
  return { connection, drop: () => admin(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

async function admin(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
