import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin';
import { loadConfig, type Config } from '../../src/config';
import { openStore } from '../../src/data/open-store';
import type { AccountStore } from '../../src/services/account-store';
import { verifyPassword } from '../../src/domain/passwords';
import { built } from '../helpers/built';

let dir: string;
let config: Config;
let store: AccountStore;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'admin-password-'));
  config = loadConfig({ DATA_DIR: dir });
  store = openStore(config);
});
afterEach(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function admin(argv: string, stdin: string | undefined) {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(argv.split(' '), {
    config,
    store,
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    stdin: async () => stdin,
  });
  return {
    code,
    stdout,
    json: stdout ? JSON.parse(stdout) : undefined,
    error: stderr ? JSON.parse(stderr.split('\n')[0]!).error : undefined,
  };
}

describe('account password', () => {
  it('sets the password read from stdin (without the trailing newline) and ends the account’s sessions', async () => {
    const account = await store.createAccount({ email: 'ops@example.com', plan: 'developer' });
    await store.createSession('a'.repeat(64), account.id, new Date().toISOString());
    const r = await admin('account password --email OPS@example.com', 'a long passphrase here\n');
    expect(r).toMatchObject({ code: 0, json: { id: account.id, email: 'ops@example.com', passwordSet: true, sessionsEnded: true } });
    const hash = (await store.findCredentials('ops@example.com'))!.passwordHash!;
    expect(await verifyPassword(hash, 'a long passphrase here')).toBe(true);
    expect(await store.findSession('a'.repeat(64))).toBeUndefined();
    expect(r.stdout).not.toContain('passphrase');
  });

  it('refuses a short password, an unknown email, and a terminal instead of a pipe', async () => {
    await store.createAccount({ email: 'ops@example.com', plan: 'free' });
    expect(await admin('account password --email ops@example.com', 'short\n')).toMatchObject({
      code: 1,
      error: { code: 'INVALID_REQUEST' },
    });
    expect(await admin('account password --email nobody@example.com', 'a long passphrase here')).toMatchObject({
      code: 1,
      error: { code: 'NOT_FOUND' },
    });
    expect(await admin('account password --email ops@example.com', undefined)).toMatchObject({
      code: 2,
      error: { message: expect.stringContaining('stdin') },
    });
    expect((await store.findCredentials('ops@example.com'))!.passwordHash).toBeNull();
  });

  it('works through scripts/admin.ts with the password piped in, and the account can then log in', async () => {
    await store.createAccount({ email: 'ops@example.com', plan: 'free' });
    const run = spawnSync(process.execPath, [built('admin'), 'account', 'password', '--email', 'ops@example.com'], {
      env: { PATH: process.env.PATH, DATA_DIR: dir },
      input: 'piped passphrase 123\n',
      encoding: 'utf8',
    });
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ passwordSet: true });
    expect(await verifyPassword((await store.findCredentials('ops@example.com'))!.passwordHash!, 'piped passphrase 123')).toBe(true);
  });
});
