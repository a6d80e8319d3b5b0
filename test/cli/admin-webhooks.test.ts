import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin';
import { loadConfig, type Config } from '../../src/config';
import { openStore } from '../../src/data/open-store';
import { webhookSecretBox } from '../../src/data/webhook-secret-key';
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

  it('development, its database outside DATA_DIR and no key file: webhook add refuses, naming WEBHOOK_SECRET_KEY, and makes no key of its own', async () => {
    await admin('account create --email ops@example.com --plan free');
    // PostgreSQL, or a SQLite file elsewhere: servers on other data directories share the database.
    const elsewhere = loadConfig({ DATA_DIR: dir, DATABASE_URL: path.join(os.tmpdir(), 'elsewhere.db') });
    const refused = await admin('webhook add --email ops@example.com --url http://127.0.0.1:9/hooks', { config: elsewhere });
    expect(refused).toMatchObject({
      code: 1,
      error: { code: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/^WEBHOOK_SECRET_KEY is not set.*Set WEBHOOK_SECRET_KEY/) },
    });
    expect(fs.existsSync(path.join(dir, 'webhook-secret.key'))).toBe(false);
    expect((await admin('webhook list --email ops@example.com')).json.endpoints).toEqual([]);
  });

  it('development without WEBHOOK_SECRET_KEY seals under the key file a server made in DATA_DIR, which that server opens', async () => {
    await admin('account create --email ops@example.com --plan free');
    const serverBox = webhookSecretBox(config);
    serverBox().seal('whsec_x', 'whe_0'); // a server on this data directory made its key
    const elsewhere = loadConfig({ DATA_DIR: dir, DATABASE_URL: path.join(os.tmpdir(), 'elsewhere.db') });
    const added = await admin('webhook add --email ops@example.com --url http://127.0.0.1:9/hooks', { config: elsewhere });
    expect(added.code).toBe(0);
    const db = new Database(path.join(dir, 'measurement.db'), { readonly: true });
    const { secret } = db.prepare('SELECT secret FROM webhook_endpoints WHERE id = ?').get(added.json.id) as { secret: string };
    db.close();
    expect(serverBox().open(secret, added.json.id)).toBe(added.json.secret);
  });

  it('a bad WEBHOOK_SECRET_KEY stops the configuration without showing it', () => {
    expect(() => loadConfig({ DATA_DIR: dir, WEBHOOK_SECRET_KEY: 'hunter2-is-not-a-key' })).toThrow(
      /WEBHOOK_SECRET_KEY must be 32 bytes.*\(value not shown\)/,
    );
  });

  it('an account holds WEBHOOK_ENDPOINTS_PER_ACCOUNT endpoints (default 10); one more is refused until one is removed', async () => {
    await admin('account create --email ops@example.com --plan free');
    const added = [];
    for (let n = 0; n < 10; n++)
      added.push((await admin(`webhook add --email ops@example.com --url http://127.0.0.1:9/hooks/${n}`)).json.id as string);
    expect(await admin('webhook add --email ops@example.com --url http://127.0.0.1:9/hooks/10')).toMatchObject({
      code: 1,
      error: { code: 'INVALID_REQUEST', message: 'An account has at most 10 webhook endpoints; remove one first.' },
    });
    await admin(`webhook remove --email ops@example.com --id ${added[0]}`);
    expect(await admin('webhook add --email ops@example.com --url http://127.0.0.1:9/hooks/10')).toMatchObject({ code: 0 });
    const two = loadConfig({ DATA_DIR: dir, WEBHOOK_ENDPOINTS_PER_ACCOUNT: '2' });
    await admin('account create --email dev@example.com --plan free');
    for (let n = 0; n < 2; n++)
      expect(await admin(`webhook add --email dev@example.com --url http://127.0.0.1:9/d/${n}`, { config: two })).toMatchObject({
        code: 0,
      });
    expect(await admin('webhook add --email dev@example.com --url http://127.0.0.1:9/d/2', { config: two })).toMatchObject({
      code: 1,
      error: { code: 'INVALID_REQUEST', message: expect.stringMatching(/at most 2 webhook endpoints/) },
    });
    expect(() => loadConfig({ DATA_DIR: dir, WEBHOOK_ENDPOINTS_PER_ACCOUNT: '0' })).toThrow(/WEBHOOK_ENDPOINTS_PER_ACCOUNT/);
  });
});

describe('admin key create: the bound on live keys', () => {
  it('an account holds KEYS_PER_ACCOUNT live keys; a revoked one makes room, a rotation is never refused', async () => {
    const three = loadConfig({ DATA_DIR: dir, KEYS_PER_ACCOUNT: '3' });
    const create = (extra = '') => admin(`key create --plan free --email ops@example.com${extra}`, { config: three });
    const ids = [];
    for (let n = 0; n < 3; n++) ids.push((await create()).json.id as string);
    const refused = await create();
    expect(refused).toMatchObject({
      code: 1,
      error: { code: 'INVALID_REQUEST', message: 'An account has at most 3 live keys (not revoked and not expired); revoke one first.' },
    });
    expect(refused.stdout).toBe('');
    expect(await admin(`key rotate --id ${ids[0]} --grace 1h`, { config: three })).toMatchObject({ code: 0 });
    await admin(`key revoke --id ${ids[1]}`, { config: three });
    await admin(`key revoke --id ${ids[2]}`, { config: three });
    expect(await create()).toMatchObject({ code: 0 });
    expect(await create()).toMatchObject({ code: 1, error: { code: 'INVALID_REQUEST' } });
    // The default is 100.
    expect(config.accountBounds).toEqual({ webhookEndpoints: 10, liveKeys: 100 });
  });
});
