import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * PostgreSQL for the tests that need a real server. `TEST_DATABASE_URL` names a database the tests
 * may connect to (CI: postgres://postgres@127.0.0.1:5432/test); each suite gets a database of its
 * own, created from it and dropped afterwards, so suites (and parallel vitest workers) never see
 * each other's rows. Unset outside CI: the suite skips with a message; in CI (`CI` set) a missing
 * TEST_DATABASE_URL fails instead, so CI can never pass by skipping.
 */
export const TEST_DATABASE_URL = process.env['TEST_DATABASE_URL'];

if (!TEST_DATABASE_URL && process.env['CI']) {
  throw new Error('TEST_DATABASE_URL is unset: CI must run the PostgreSQL suites (.ci/run sets it).');
}

/** A describe title that says why the suite skipped when it did. */
export function postgresTitle(title: string): string {
  return TEST_DATABASE_URL ? title : `${title} (skipped: set TEST_DATABASE_URL, e.g. postgres://postgres@127.0.0.1:5432/test, to run)`;
}

export interface FreshDatabase {
  /** The postgres:// URL of the new, empty database. */
  url: string;
  /** Ends every connection to it and drops it. */
  drop(): Promise<void>;
}

/** Creates an empty database `mt_<random>` on the TEST_DATABASE_URL server. */
export async function freshDatabase(): Promise<FreshDatabase> {
  if (!TEST_DATABASE_URL) throw new Error('TEST_DATABASE_URL is unset');
  const name = `mt_${randomBytes(6).toString('hex')}`;
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
