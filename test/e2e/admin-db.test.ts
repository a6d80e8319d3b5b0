import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_MIGRATIONS } from '../../src/data/migrations';
import { POSTGRES_MIGRATIONS } from '../../src/data/postgres-migrations';
import { freshDatabase, postgresTitle, TEST_DATABASE_URL, type FreshDatabase } from '../helpers/postgres';
import { built } from '../helpers/built';

const run = promisify(execFile);

/** `npm run --silent admin -- …` as a process: exit code, stdout and stderr. */
async function admin(args: string[], env: Record<string, string>) {
  try {
    const { stdout, stderr } = await run(process.execPath, [built('admin'), ...args], {
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('admin db migrate (SQLite)', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'admin-db-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('applies every migration to a new file, then nothing; the file keeps its user_version', async () => {
    const first = await admin(['db', 'migrate'], { DATA_DIR: dir });
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(first.stdout)).toEqual({
      database: 'sqlite',
      applied: SQLITE_MIGRATIONS.map((_, i) => i + 1),
      version: SQLITE_MIGRATIONS.length,
    });
    expect(JSON.parse((await admin(['db', 'migrate'], { DATA_DIR: dir })).stdout)).toEqual({
      database: 'sqlite',
      applied: [],
      version: SQLITE_MIGRATIONS.length,
    });
    const raw = new BetterSqlite3(path.join(dir, 'measurement.db'), { readonly: true });
    expect(raw.pragma('user_version', { simple: true })).toBe(SQLITE_MIGRATIONS.length);
    raw.close();
  });
});

describe.skipIf(!TEST_DATABASE_URL)(postgresTitle('admin db migrate (PostgreSQL)'), () => {
  let database: FreshDatabase;
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(async () => database?.drop());

  it('three at once: one applies the migrations, the others find nothing to do; one JSON line each', async () => {
    const runs = await Promise.all([0, 1, 2].map(() => admin(['db', 'migrate'], { DATABASE_URL: database.url })));
    const reports = runs.map((r) => {
      expect(r).toMatchObject({ code: 0, stderr: '' });
      return JSON.parse(r.stdout) as { database: string; applied: number[]; version: number };
    });
    expect(reports.map((r) => r.applied.length).sort()).toEqual([0, 0, POSTGRES_MIGRATIONS.length]);
    for (const report of reports) expect(report).toMatchObject({ database: 'postgres', version: POSTGRES_MIGRATIONS.length });
  });

  it('an unreachable server, a wrong user or a missing database: one JSON error line naming DATABASE_URL, exit 1, password never shown', async () => {
    const url = new URL(database.url);
    const cases = [
      Object.assign(new URL(url), { port: '9', password: 's3cret-pw' }),
      Object.assign(new URL(url), { username: 'nobody_here', password: 's3cret-pw' }),
      Object.assign(new URL(url), { pathname: '/no_such_database_here', password: 's3cret-pw' }),
    ];
    for (const bad of cases) {
      const r = await admin(['db', 'migrate'], { DATABASE_URL: bad.toString() });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!).error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: expect.stringContaining('DATABASE_URL') });
      expect(r.stderr).not.toContain('s3cret-pw');
    }
  });
});
