import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAdmin, USAGE } from '../../src/cli/admin';
import { loadConfig, type Config } from '../../src/config';
import { openStore } from '../../src/data/open-store';
import type { AccountStore } from '../../src/services/account-store';
import { authenticate } from '../../src/services/auth';
import { built } from '../helpers/built';

let dir: string;
let config: Config;
let store: AccountStore;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'admin-'));
  config = loadConfig({ DATA_DIR: dir });
  store = openStore(config);
});
afterEach(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs the CLI in-process; `json` is the one stdout line parsed (undefined when stdout is not JSON). */
async function admin(argv: string, options: { config?: Config; now?: Date } = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(argv === '' ? [] : argv.split(' '), {
    config: options.config ?? config,
    store,
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    now: () => options.now ?? new Date('2026-03-31T23:59:59Z'),
  });
  const parse = (s: string) => (s.startsWith('{') ? JSON.parse(s) : undefined);
  // The error is the first stderr line; after a usage error (exit 2) the usage text follows.
  return { code, stdout, stderr, json: parse(stdout), error: parse(stderr.split('\n')[0]!)?.error };
}

describe('account', () => {
  it('account create prints {id, email, plan}', async () => {
    const r = await admin('account create --email Ops@Example.com --plan developer');
    expect(r).toMatchObject({
      code: 0,
      stderr: '',
      json: { id: expect.stringMatching(/^acc_/), email: 'ops@example.com', plan: 'developer' },
    });
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(1);
  });

  it('account create with a used email fails with exit 1', async () => {
    await admin('account create --email ops@example.com --plan free');
    const r = await admin('account create --email ops@example.com --plan free');
    expect(r).toMatchObject({
      code: 1,
      stdout: '',
      error: { code: 'INVALID_REQUEST', message: expect.stringContaining('already exists') },
    });
  });

  it('account plan changes the plan and prints {id, email, plan}', async () => {
    const { json } = await admin('account create --email ops@example.com --plan free');
    expect(await admin('account plan --email ops@example.com --plan business')).toMatchObject({
      code: 0,
      json: { ...json, plan: 'business' },
    });
    expect(await admin('account plan --email nobody@example.com --plan free')).toMatchObject({ code: 1, error: { code: 'NOT_FOUND' } });
  });
});

describe('key create', () => {
  it('without --email creates an account and a key of the configuration’s environment', async () => {
    const r = await admin('key create --plan free');
    expect(r).toMatchObject({
      code: 0,
      json: {
        key: expect.stringMatching(/^msr_test_/),
        id: expect.stringMatching(/^key_/),
        plan: 'free',
        env: 'test',
        accountId: expect.stringMatching(/^acc_/),
      },
    });
    expect(Object.keys(r.json)).toEqual(['key', 'id', 'plan', 'env', 'accountId']);
    expect((await authenticate(`Bearer ${r.json.key}`, store, 'development')).keyId).toBe(r.json.id);
  });

  it('defaults to live keys when API_ENV=production, and --env overrides', async () => {
    const production = loadConfig({ DATA_DIR: dir, API_ENV: 'production' });
    expect((await admin('key create --plan free', { config: production })).json.env).toBe('live');
    expect((await admin('key create --plan free --env live')).json.key).toMatch(/^msr_live_/);
  });

  it('with the --email of an existing account adds the key to it', async () => {
    const account = (await admin('account create --email ops@example.com --plan developer')).json;
    const r = await admin('key create --plan developer --email ops@example.com');
    expect(r).toMatchObject({ code: 0, json: { plan: 'developer', accountId: account.id } });
  });

  it('with --email of an existing account on another plan fails and points to account plan', async () => {
    await admin('account create --email ops@example.com --plan developer');
    const r = await admin('key create --plan free --email ops@example.com');
    expect(r).toMatchObject({
      code: 1,
      stdout: '',
      error: { code: 'INVALID_REQUEST', message: expect.stringContaining('account plan --email ops@example.com --plan free') },
    });
  });

  it('with a new --email creates that account', async () => {
    const r = await admin('key create --plan business --email new@example.com');
    expect((await store.findAccountByEmail('new@example.com'))?.id).toBe(r.json.accountId);
  });
});

describe('key revoke and rotate', () => {
  it('key revoke prints {id, revoked, revokedAt} and is idempotent', async () => {
    const { json: created } = await admin('key create --plan free');
    const first = await admin(`key revoke --id ${created.id}`);
    expect(first).toMatchObject({ code: 0, json: { id: created.id, revoked: true, revokedAt: expect.any(String), alreadyRevoked: false } });
    const again = await admin(`key revoke --id ${created.id}`);
    expect(again).toMatchObject({ code: 0, json: { ...first.json, alreadyRevoked: true } });
    await expect(authenticate(`Bearer ${created.key}`, store, 'development')).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    expect(await admin('key revoke --id key_missing')).toMatchObject({ code: 1, error: { code: 'NOT_FOUND' } });
  });

  it('key rotate prints the new key and replaces, and the old key stops working at once', async () => {
    const { json: created } = await admin('key create --plan developer');
    const r = await admin(`key rotate --id ${created.id}`);
    expect(r).toMatchObject({
      code: 0,
      json: {
        key: expect.stringMatching(/^msr_test_/),
        plan: 'developer',
        env: 'test',
        accountId: created.accountId,
        replaces: created.id,
      },
    });
    expect(r.json.id).not.toBe(created.id);
    await expect(authenticate(`Bearer ${created.key}`, store, 'development')).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    expect((await authenticate(`Bearer ${r.json.key}`, store, 'development')).keyId).toBe(r.json.id);
    expect(await admin(`key rotate --id ${created.id}`)).toMatchObject({ code: 1, error: { code: 'INVALID_REQUEST' } });
  });
});

describe('key lifetimes', () => {
  const HOUR = 3_600_000;
  // The store stamps keys with the system clock: the CLI's clock is set from it.
  const soon = () => new Date();
  const at = (from: Date, ms: number) => new Date(from.getTime() + ms);

  it('key create --expires stores the expiry in UTC and prints it; the key works until then, then is KEY_EXPIRED', async () => {
    const now = soon();
    const expires = at(now, 2 * HOUR);
    const text = expires.toISOString().replace(/\.\d+Z$/, '+00:00');
    const r = await admin(`key create --plan free --expires ${text}`, { now });
    const expected = new Date(Math.floor(expires.getTime() / 1000) * 1000).toISOString();
    expect(r).toMatchObject({ code: 0, json: { expiresAt: expected } });
    expect((await authenticate(`Bearer ${r.json.key}`, store, 'development', () => now)).expiresAt).toBe(expected);
    const late = authenticate(`Bearer ${r.json.key}`, store, 'development', () => at(expires, 1000));
    await expect(late).rejects.toMatchObject({ code: 'KEY_EXPIRED', message: expect.stringContaining(`expired at ${expected}`) });
  });

  it.each([
    ['a date without a time', '2027-01-31'],
    ['a time without an offset', '2027-01-31T00:00:00'],
    ['a time in the past', '2020-01-01T00:00:00Z'],
  ])('key create --expires refuses %s with INVALID_REQUEST and creates nothing', async (_, text) => {
    const r = await admin(`key create --plan free --email ops@example.com --expires ${text}`, { now: soon() });
    expect(r).toMatchObject({ code: 1, stdout: '', error: { code: 'INVALID_REQUEST' } });
    expect(await store.findAccountByEmail('ops@example.com')).toBeUndefined();
  });

  it('key rotate --grace 1h: the old key works for the hour beside the new one, then is KEY_EXPIRED', async () => {
    const now = soon();
    const { json: created } = await admin('key create --plan developer', { now });
    const r = await admin(`key rotate --id ${created.id} --grace 1h`, { now });
    const end = at(now, HOUR).toISOString();
    expect(r).toMatchObject({ code: 0, json: { replaces: created.id, replacedWorksUntil: end } });
    expect(r.json).not.toHaveProperty('expiresAt');
    const old = await authenticate(`Bearer ${created.key}`, store, 'development', () => at(now, HOUR - 1000));
    expect(old).toMatchObject({ keyId: created.id, expiresAt: end });
    expect((await authenticate(`Bearer ${r.json.key}`, store, 'development', () => at(now, HOUR - 1000))).expiresAt).toBeNull();
    await expect(authenticate(`Bearer ${created.key}`, store, 'development', () => at(now, HOUR))).rejects.toMatchObject({
      code: 'KEY_EXPIRED',
      message: expect.stringContaining(`grace ended at ${end}`),
    });
    expect((await authenticate(`Bearer ${r.json.key}`, store, 'development', () => at(now, 2 * HOUR))).keyId).toBe(r.json.id);
    // A key in its grace was rotated already: its successor is the one to rotate.
    expect(await admin(`key rotate --id ${created.id} --grace 1h`, { now })).toMatchObject({
      code: 1,
      error: { code: 'INVALID_REQUEST', message: expect.stringContaining(r.json.id) },
    });
  });

  it('key rotate --grace 0 revokes the old key at once, as without --grace', async () => {
    const { json: created } = await admin('key create --plan free');
    const r = await admin(`key rotate --id ${created.id} --grace 0`);
    expect(r).toMatchObject({ code: 0, json: { replaces: created.id, replacedRevokedAt: expect.any(String) } });
    await expect(authenticate(`Bearer ${created.key}`, store, 'development')).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('the grace never outlives the old key’s own expiry, and the new key keeps that expiry', async () => {
    const now = soon();
    const own = at(now, 2 * HOUR)
      .toISOString()
      .replace(/\.\d+Z$/, 'Z');
    const { json: created } = await admin(`key create --plan free --expires ${own}`, { now });
    const r = await admin(`key rotate --id ${created.id} --grace 7d`, { now });
    expect(r).toMatchObject({ code: 0, json: { expiresAt: created.expiresAt, replacedWorksUntil: created.expiresAt } });
  });

  it.each(['8d', '1w', '-1h', '1.5h', ''])('key rotate --grace %j is refused and rotates nothing', async (grace) => {
    const { json: created } = await admin('key create --plan free');
    const r = await runAdmin(['key', 'rotate', '--id', created.id, '--grace', grace], {
      config,
      store,
      stdout: { write: () => true },
      stderr: { write: () => true },
    });
    // parseArgs takes '-1h' for an option (a usage error, 2); the others are refused values (1).
    expect(r).toBe(grace === '-1h' ? 2 : 1);
    expect((await store.findKeyById(created.id))?.replacedBy).toBeNull();
  });
});

describe('usage', () => {
  it('prints the account’s use of the current UTC month and its limit', async () => {
    const { json: created } = await admin('key create --plan developer');
    const raw = new BetterSqlite3(path.join(dir, 'measurement.db'));
    raw.prepare('INSERT INTO usage (account_id, month, used) VALUES (?, ?, ?)').run(created.accountId, '2026-03', 7);
    raw.close();
    expect(await admin(`usage --id ${created.id}`)).toMatchObject({
      code: 0,
      json: { accountId: created.accountId, plan: 'developer', month: '2026-03', used: 7, limit: 100000 },
    });
    expect(await admin('usage --id key_missing')).toMatchObject({ code: 1, error: { code: 'NOT_FOUND' } });
  });

  it('prints the last 31 UTC days, oldest first, with what was delivered and refused each day', async () => {
    const { json: created } = await admin('key create --plan free');
    await store.consumeQuotaUpTo(created.accountId, '2026-03', 1000, 5, undefined, undefined, '2026-03-31');
    await store.consumeQuotaUpTo(created.accountId, '2026-03', 1000, 2, undefined, undefined, '2026-03-01');
    await store.consumeQuotaUpTo(created.accountId, '2026-02', 1000, 4, undefined, undefined, '2026-02-28');
    await store.recordRefusals([{ accountId: created.accountId, day: '2026-03-31', quota: 3, rate: 1 }]);
    const { json } = await admin(`usage --id ${created.id}`);
    expect(json.used).toBe(7);
    expect(json.days).toHaveLength(31);
    expect(json.days[0]).toEqual({ day: '2026-03-01', delivered: 2, refusedQuota: 0, refusedRate: 0 });
    expect(json.days[15]).toEqual({ day: '2026-03-16', delivered: 0, refusedQuota: 0, refusedRate: 0 });
    expect(json.days[30]).toEqual({ day: '2026-03-31', delivered: 5, refusedQuota: 3, refusedRate: 1 });
    expect(await admin('usage --id key_missing')).toMatchObject({ code: 1, error: { code: 'NOT_FOUND' } });
  });
});

describe('key list and account show', () => {
  it('key list prints the account’s keys with the ids rotate, revoke and usage take, never a key or a hash', async () => {
    const { json: first } = await admin('key create --plan developer --email ann@example.com');
    const { json: second } = await admin('key create --plan developer --email ann@example.com --expires 2026-06-01T00:00:00Z');
    await admin(`key revoke --id ${first.id}`);
    const r = await admin('key list --email Ann@Example.com');
    expect(r).toMatchObject({ code: 0, stderr: '', json: { accountId: first.accountId, email: 'ann@example.com' } });
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(r.json.keys).toEqual([
      expect.objectContaining({ id: first.id, env: 'test', tail: first.key.slice(-4), revokedAt: expect.any(String), expiresAt: null }),
      expect.objectContaining({ id: second.id, tail: second.key.slice(-4), revokedAt: null, expiresAt: '2026-06-01T00:00:00.000Z' }),
    ]);
    expect(Object.keys(r.json.keys[0]).sort()).toEqual(
      ['createdAt', 'env', 'expiresAt', 'id', 'lastUsedAt', 'replacedBy', 'revokedAt', 'tail'].sort(),
    );
    expect(r.stdout).not.toContain(first.key);
    expect(r.stdout).not.toContain(second.key);
  });

  it('account show prints the account with this month’s usage and limit', async () => {
    const { json: created } = await admin('key create --plan free --email ann@example.com');
    await store.consumeQuotaUpTo(created.accountId, '2026-03', 1000, 5, undefined, undefined, '2026-03-31');
    expect(await admin('account show --email ann@example.com')).toMatchObject({
      code: 0,
      stderr: '',
      json: {
        id: created.accountId,
        email: 'ann@example.com',
        plan: 'free',
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        month: '2026-03',
        used: 5,
        limit: 1000,
        keys: 1,
      },
    });
  });

  it.each(['key list', 'account show'])('%s with an unknown email is NOT_FOUND on stderr, exit 1', async (command) => {
    expect(await admin(`${command} --email nobody@example.com`)).toMatchObject({
      code: 1,
      stdout: '',
      error: { code: 'NOT_FOUND', message: "No account has the email 'nobody@example.com'." },
    });
  });

  it('--help lists both', async () => {
    const { stdout } = await admin('--help');
    expect(stdout).toContain('key list --email E');
    expect(stdout).toContain('account show --email E');
  });
});

describe('usage errors', () => {
  it('--help prints the usage text and exits 0', async () => {
    const r = await admin('--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('key create --plan');
    expect((await admin('key create --help')).code).toBe(0);
  });

  it('no command is a usage error: the JSON line and the usage text on stderr, nothing on stdout, exit 2', async () => {
    const r = await admin('');
    expect(r).toMatchObject({ code: 2, stdout: '', error: { code: 'INVALID_REQUEST', message: 'No command given.' } });
    expect(r.stderr.split('\n').slice(1).join('\n')).toContain('Usage:');
  });

  it.each([
    ['an unknown command', 'key destroy --id x', /Unknown command 'key destroy'/],
    ['an unknown option', 'key create --plan free --colour red', /--colour/],
    ['a missing option', 'key revoke', /Missing --id/],
    ['an unknown plan', 'key create --plan gold', /--plan must be one of free, developer, business/],
    ['an unknown env', 'key create --plan free --env prod', /--env must be live or test/],
    ['a positional argument', 'usage key_123', /positional/],
  ])('%s is a usage error: one JSON line on stderr, then the usage text, exit 2', async (_, argv, message) => {
    const r = await admin(argv);
    expect(r).toMatchObject({ code: 2, stdout: '', error: { code: 'INVALID_REQUEST', message: expect.stringMatching(message) } });
    const [, ...usage] = r.stderr.trimEnd().split('\n');
    expect(usage.join('\n')).toBe(USAGE);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('failures', () => {
  it('an unexpected error is INTERNAL with its message, exit 1, never a stack trace', async () => {
    await store.close();
    const r = await admin('usage --id key_x');
    expect(r).toMatchObject({ code: 1, stdout: '', error: { code: 'INTERNAL', message: expect.any(String) } });
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('scripts/admin.ts', () => {
  const run = (args: string[], env: Record<string, string>) =>
    spawnSync(process.execPath, [built('admin'), ...args], {
      env: { PATH: process.env.PATH, ...env },
      encoding: 'utf8',
    });

  it('runs a command against DATA_DIR and exits with its code', () => {
    const created = run(['key', 'create', '--plan', 'free'], { DATA_DIR: dir, API_ENV: 'production' });
    expect(created.status).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ env: 'live', plan: 'free' });
    const failed = run(['key', 'revoke', '--id', 'key_missing'], { DATA_DIR: dir });
    expect(failed.status).toBe(1);
    expect(JSON.parse(failed.stderr).error.code).toBe('NOT_FOUND');
  });

  it('a bad configuration is one JSON line naming the variable, exit 1', () => {
    const r = run(['usage', '--id', 'key_x'], { DATA_DIR: dir, API_ENV: 'staging' });
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'INVALID_CONFIGURATION', message: expect.stringContaining('API_ENV') });
  });
});
