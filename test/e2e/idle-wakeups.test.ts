import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabase, postgresTitle, TEST_DATABASE_URL } from '../helpers/postgres';
import { startServer, type ServerProcess } from '../helpers/server-process';

/**
 * A started server with nothing to do sleeps: its event loop turns a few times a minute (the
 * rates' and the sources' revision checks, the outbox's sweep), not on a timer of every few
 * milliseconds or every second.
 * Counted in loop turns (test/fixtures/probes/loop-turns.mjs), not CPU, so the load of the
 * machine does not decide it. Before the loop-delay sampler and node:http's check were tied to
 * open connections, an idle server turned about 6,000 times a minute.
 */
const SETTLE_MS = 15_000;
const WINDOW_MS = 30_000;
/**
 * The revision checks of the rates and the sources (every 5 s each, a few turns apiece: about 70 a
 * minute on SQLite, about 145 on PostgreSQL, whose queries take several turns each) and the
 * outbox's sweep (60 s), with room; a timer of a second more would not fit on SQLite.
 */
const MAX_TURNS_A_MINUTE = { sqlite: 120, postgres: 300 };
const dirs: string[] = [];

async function turnsAt(server: ServerProcess): Promise<{ turns: number; at: number }> {
  const marks = () => server.logs().match(/^loop-turns .*$/gm) ?? [];
  const before = marks().length;
  server.child.kill('SIGUSR2');
  await expect.poll(() => marks().length, { timeout: 10_000 }).toBeGreaterThan(before);
  return JSON.parse(marks()[before]!.slice('loop-turns '.length)) as { turns: number; at: number };
}

async function idleTurnsAMinute(env: Record<string, string>): Promise<number> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'measurement-idle-'));
  dirs.push(dataDir);
  const refused = 'http://127.0.0.1:9';
  const server = await startServer(
    {
      DATA_DIR: dataDir,
      RATES_FILE: 'test/fixtures/ecb/hist-wide.csv',
      ECB_BASE_URL: `${refused}/ecb`,
      // Every source's loop runs; their first fetches are refused at once and retried within seconds.
      RATE_SOURCES: 'all',
      ...Object.fromEntries(['BOC', 'NB', 'CNB', 'NBP', 'CBR', 'BOI', 'IMF', 'NBU'].map((id) => [`${id}_BASE_URL`, refused])),
      ...env,
    },
    { imports: ['./test/fixtures/probes/loop-turns.mjs'] },
  );
  try {
    // The start's tail (the refused fetches and their retries) passes; then the loop is counted.
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const first = await turnsAt(server);
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
    const last = await turnsAt(server);
    return ((last.turns - first.turns) * 60_000) / (last.at - first.at);
  } finally {
    await server.kill();
  }
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('an idle server', () => {
  it(`turns its event loop at most ${MAX_TURNS_A_MINUTE.sqlite} times a minute on SQLite`, async () => {
    expect(await idleTurnsAMinute({})).toBeLessThanOrEqual(MAX_TURNS_A_MINUTE.sqlite);
  }, 120_000);

  it.skipIf(!TEST_DATABASE_URL)(
    postgresTitle(`turns its event loop at most ${MAX_TURNS_A_MINUTE.postgres} times a minute on PostgreSQL (+ Redis with TEST_REDIS_URL)`),
    async () => {
      const database = await freshDatabase();
      try {
        const redis = process.env['TEST_REDIS_URL'];
        // A Redis database of its own: the rates cache keeps publications under a fixed prefix.
        const env = {
          DATABASE_URL: database.url,
          ...(redis ? { REDIS_URL: Object.assign(new URL(redis), { pathname: '/12' }).toString() } : {}),
        };
        expect(await idleTurnsAMinute(env)).toBeLessThanOrEqual(MAX_TURNS_A_MINUTE.postgres);
      } finally {
        await database.drop();
      }
    },
    120_000,
  );
});
