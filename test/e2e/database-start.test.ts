import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, postgresTitle, TEST_DATABASE_URL, type FreshDatabase } from '../helpers/postgres';
import { built } from '../helpers/built';

/** Runs the server to its exit (it must exit by itself); its exit code and output. */
function startToExit(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [built('main')], {
      env: { ...process.env, PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // Only stops a hung test: a server that listens instead of exiting is a failure.
    const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe.skipIf(!TEST_DATABASE_URL)(postgresTitle('a DATABASE_URL the server cannot use at start'), () => {
  let database: FreshDatabase;
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(async () => database?.drop());

  it('malformed, unreachable, wrong user, missing database: one line naming DATABASE_URL on stderr, exit 1, no stack, no password', async () => {
    const url = new URL(database.url);
    const cases = {
      malformed: 'postgres://user:s3cret-pw@[::1/db',
      unreachable: Object.assign(new URL(url), { port: '9', password: 's3cret-pw' }).toString(),
      'wrong user': Object.assign(new URL(url), { username: 'nobody_here', password: 's3cret-pw' }).toString(),
      'missing database': Object.assign(new URL(url), { pathname: '/no_such_database_here', password: 's3cret-pw' }).toString(),
    };
    for (const [why, value] of Object.entries(cases)) {
      const run = await startToExit({ DATABASE_URL: value });
      expect(run.code, why).toBe(1);
      const lines = run.stderr.trim().split('\n');
      expect(lines, `${why}: ${run.stderr}`).toHaveLength(1);
      expect(lines[0], why).toContain('DATABASE_URL');
      expect(run.stderr + run.stdout, why).not.toContain('s3cret-pw');
      expect(run.stderr, why).not.toMatch(/\n\s+at /);
      expect(run.stdout, why).not.toContain('listening');
    }
  });
});
