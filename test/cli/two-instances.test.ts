import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { built } from '../helpers/built';
import { freshDatabase, postgresTitle, TEST_DATABASE_URL, type FreshDatabase } from '../helpers/postgres';

/**
 * docs/deploy.md's two-instance recipe, run as an operator runs it (`npm run instances:two -- --check`,
 * here with the run's bundles): two real instances on a fresh PostgreSQL database and Redis behind
 * the script's proxy, one key made by the CLI, one conversion served by each instance, and each
 * instance counting both.
 */
const run = promisify(execFile);
let database: FreshDatabase;

describe.skipIf(!TEST_DATABASE_URL)(postgresTitle('the two-instance recipe'), () => {
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(() => database?.drop());

  it('serves one key from both instances with one quota, and stops by itself', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/two-instances.ts', '--check'], {
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: database.url,
        REDIS_URL: process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379/15',
        PORT: '0',
        MAIN: built('main'),
        ADMIN: built('admin'),
        ECB_BASE_URL: 'http://127.0.0.1:9/ecb',
        RATE_SOURCES: 'ecb',
        LOG_LEVEL: 'warn',
      },
      timeout: 120_000,
    });
    const report = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(new Set(report.instances).size).toBe(2);
    expect(report.converted).toEqual(['1.609344', '1.609344']);
    expect(report.usedOnEachInstance).toEqual([2, 2]);
    expect(['ok', 'degraded']).toContain(report.health);
  });
});
