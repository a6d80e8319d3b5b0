import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin';
import { loadConfig, type Config } from '../../src/config';
import { openStore } from '../../src/data/open-store';
import type { AccountStore } from '../../src/services/account-store';

let dir: string;
let config: Config;
let store: AccountStore;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'admin-webhooks-'));
  config = loadConfig({ DATA_DIR: dir });
  store = openStore(config);
});
afterEach(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function admin(argv: string, options: { config?: Config } = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(argv.split(' '), {
    config: options.config ?? config,
    store,
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
  });
  const parse = (s: string) => (s.startsWith('{') ? JSON.parse(s) : undefined);
  return { code, stdout, stderr, json: parse(stdout), error: parse(stderr.split('\n')[0]!)?.error };
}

describe('admin webhook add|list|remove', () => {
  it('add prints the endpoint and its whsec_ secret once; list shows it without the secret; remove removes it', async () => {
    await admin('account create --email ops@example.com --plan free');
    const added = await admin('webhook add --email ops@example.com --url http://127.0.0.1:9/hooks');
    expect(added).toMatchObject({
      code: 0,
      stderr: '',
      json: { id: expect.stringMatching(/^whe_[0-9a-f]{24}$/), url: 'http://127.0.0.1:9/hooks', secret: expect.stringMatching(/^whsec_/) },
    });
    const listed = await admin('webhook list --email ops@example.com');
    expect(listed.json).toEqual({
      accountId: added.json.accountId,
      endpoints: [
        { id: added.json.id, url: 'http://127.0.0.1:9/hooks', createdAt: added.json.createdAt, deliveries: [], failed: 0, pending: 0 },
      ],
    });
    expect(listed.stdout).not.toContain(added.json.secret.slice('whsec_'.length));
    // Development made its key file, readable by its owner only.
    expect(fs.statSync(path.join(dir, 'webhook-secret.key')).mode & 0o777).toBe(0o600);
    expect(await admin(`webhook remove --email ops@example.com --id ${added.json.id}`)).toMatchObject({
      code: 0,
      json: { id: added.json.id, removed: true },
    });
    expect((await admin('webhook list --email ops@example.com')).json.endpoints).toEqual([]);
    expect(await admin(`webhook remove --email ops@example.com --id ${added.json.id}`)).toMatchObject({
      code: 1,
      error: { code: 'NOT_FOUND' },
    });
  });

  it("refuses unknown accounts, missing options and bad URLs with the contract's errors", async () => {
    expect(await admin('webhook add --email nobody@example.com --url http://127.0.0.1:9/')).toMatchObject({
      code: 1,
      error: { code: 'NOT_FOUND' },
    });
    expect(await admin('webhook add --email nobody@example.com')).toMatchObject({
      code: 2,
      error: { code: 'INVALID_REQUEST', message: 'Missing --url.' },
    });
    await admin('account create --email ops@example.com --plan free');
    expect(await admin('webhook add --email ops@example.com --url ftp://example.com/')).toMatchObject({
      code: 1,
      error: { code: 'INVALID_REQUEST', message: expect.stringMatching(/must start with https:\/\//) },
    });
    const production = loadConfig({ DATA_DIR: dir, API_ENV: 'production' });
    expect(await admin('webhook add --email ops@example.com --url https://localhost/x', { config: production })).toMatchObject({
      code: 1,
      error: { code: 'INVALID_REQUEST', message: expect.stringMatching(/localhost.*non-public/) },
    });
  });

  it('production without WEBHOOK_SECRET_KEY seals nothing and says why; with it, the secret is sealed under that key', async () => {
    await admin('account create --email ops@example.com --plan free');
    const without = loadConfig({ DATA_DIR: dir, API_ENV: 'production' });
    expect(await admin('webhook add --email ops@example.com --url https://8.8.8.8/hooks', { config: without })).toMatchObject({
      code: 1,
      error: { code: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/WEBHOOK_SECRET_KEY is not configured/) },
    });
    expect(fs.existsSync(path.join(dir, 'webhook-secret.key'))).toBe(false);
    const key = Buffer.alloc(32, 3).toString('hex');
    const withKey = loadConfig({ DATA_DIR: dir, API_ENV: 'production', WEBHOOK_SECRET_KEY: key });
    expect(await admin('webhook add --email ops@example.com --url https://8.8.8.8/hooks', { config: withKey })).toMatchObject({
      code: 0,
      json: { url: 'https://8.8.8.8/hooks' },
    });
  });

  it('a bad WEBHOOK_SECRET_KEY stops the configuration without showing it', () => {
    expect(() => loadConfig({ DATA_DIR: dir, WEBHOOK_SECRET_KEY: 'hunter2-is-not-a-key' })).toThrow(
      /WEBHOOK_SECRET_KEY must be 32 bytes.*\(value not shown\)/,
    );
  });
});
