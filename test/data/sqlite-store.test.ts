import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SQLITE_MIGRATIONS } from '../../src/data/migrations';
import { openSqliteStore } from '../../src/data/sqlite-store';
import type { AccountStore } from '../../src/services/account-store';
import { hashApiKey } from '../../src/domain/keys';

const NOW = new Date('2026-03-15T12:00:00.000Z');
let dir: string;
let file: string;
let store: AccountStore;
const opened: AccountStore[] = [];
const open = () => {
  const s = openSqliteStore(file, { now: () => NOW });
  opened.push(s);
  return s;
};

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-'));
  file = path.join(dir, 'nested', 'measurement.db');
  store = open();
});
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('opening', () => {
  it('creates the parent directory, uses WAL and records the schema version', () => {
    const raw = new BetterSqlite3(file, { readonly: true });
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(raw.pragma('user_version', { simple: true })).toBe(SQLITE_MIGRATIONS.length);
    expect(raw.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all()).toEqual(['accounts', 'api_keys', 'revisions', 'sessions', 'usage']);
    raw.close();
  });

  it('reopening an up-to-date database applies nothing', async () => {
    const again = open();
    expect(await again.findAccountById('acc_missing')).toBeUndefined();
  });
});

describe('accounts', () => {
  it('creates, finds by id and by email (case-insensitively), and changes the plan', async () => {
    const account = await store.createAccount({ email: ' Ann@Example.com ', plan: 'free' });
    expect(account).toEqual({ id: expect.stringMatching(/^acc_/), email: 'ann@example.com', plan: 'free', createdAt: NOW.toISOString() });
    expect(await store.findAccountById(account.id)).toEqual(account);
    expect(await store.findAccountByEmail('ANN@example.com')).toEqual(account);
    expect(await store.setPlan('ann@example.com', 'business')).toEqual({ ...account, plan: 'business' });
  });

  it('allows many accounts without an email', async () => {
    const a = await store.createAccount({ plan: 'free' });
    const b = await store.createAccount({ plan: 'free' });
    expect(a.email).toBeNull();
    expect(a.id).not.toBe(b.id);
  });

  it('refuses a duplicate or malformed email with INVALID_REQUEST', async () => {
    await store.createAccount({ email: 'ann@example.com', plan: 'free' });
    await expect(store.createAccount({ email: 'ANN@example.com', plan: 'developer' })).rejects.toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('already exists') });
    await expect(store.createAccount({ email: 'not an email', plan: 'free' })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
  });

  it('setPlan on an unknown email is NOT_FOUND', async () => {
    await expect(store.setPlan('nobody@example.com', 'free')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('keys', () => {
  it('creates a key whose record holds neither hash nor plaintext, found by its hash with its account', async () => {
    const account = await store.createAccount({ plan: 'developer' });
    const { key, record } = await store.createKey(account.id, 'test');
    expect(key).toMatch(/^msr_test_/);
    expect(record).toEqual({ id: expect.stringMatching(/^key_/), accountId: account.id, env: 'test', createdAt: NOW.toISOString(), revokedAt: null, replacedBy: null });
    expect(await store.findKeyById(record.id)).toEqual(record);
    expect(await store.findActiveKeyByHash(hashApiKey(key))).toEqual({ key: record, account });
    expect(await store.findActiveKeyByHash(hashApiKey(`${key}x`))).toBeUndefined();
  });

  it('creating a key for an unknown account is NOT_FOUND', async () => {
    await expect(store.createKey('acc_missing', 'test')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('a revoked key is no longer found by its hash; revoking again is idempotent', async () => {
    const account = await store.createAccount({ plan: 'free' });
    const { key, record } = await store.createKey(account.id, 'live');
    const first = await store.revokeKey(record.id);
    expect(first).toEqual({ record: { ...record, revokedAt: NOW.toISOString() }, alreadyRevoked: false });
    expect(await store.findActiveKeyByHash(hashApiKey(key))).toBeUndefined();
    expect(await store.revokeKey(record.id)).toEqual({ ...first, alreadyRevoked: true });
    await expect(store.revokeKey('key_missing')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('rotation creates a key for the same account and env and revokes the old one', async () => {
    const account = await store.createAccount({ plan: 'business' });
    const old = await store.createKey(account.id, 'live');
    const rotated = await store.rotateKey(old.record.id);
    expect(rotated.record).toMatchObject({ accountId: account.id, env: 'live', revokedAt: null });
    expect(rotated.replaced).toEqual({ ...old.record, revokedAt: NOW.toISOString(), replacedBy: rotated.record.id });
    expect(await store.findActiveKeyByHash(hashApiKey(old.key))).toBeUndefined();
    expect((await store.findActiveKeyByHash(hashApiKey(rotated.key)))?.key.id).toBe(rotated.record.id);
    await expect(store.rotateKey(old.record.id)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(store.rotateKey('key_missing')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('rotation is atomic: when revoking the old key fails, no new key exists', async () => {
    const account = await store.createAccount({ plan: 'free' });
    const old = await store.createKey(account.id, 'test');
    const raw = new BetterSqlite3(file);
    raw.exec("CREATE TRIGGER fail_revoke BEFORE UPDATE OF revoked_at ON api_keys BEGIN SELECT RAISE(ABORT, 'disk on fire'); END");
    await expect(store.rotateKey(old.record.id)).rejects.toThrow('disk on fire');
    expect(raw.prepare('SELECT count(*) FROM api_keys').pluck().get()).toBe(1);
    raw.close();
    expect(await store.findActiveKeyByHash(hashApiKey(old.key))).toBeDefined();
  });
});

describe('usage', () => {
  it('is 0 for a month without conversions and the stored count otherwise', async () => {
    const account = await store.createAccount({ plan: 'free' });
    expect(await store.monthlyUsage(account.id, '2026-03')).toBe(0);
    const raw = new BetterSqlite3(file);
    raw.prepare('INSERT INTO usage (account_id, month, used) VALUES (?, ?, ?)').run(account.id, '2026-03', 42);
    raw.close();
    expect(await store.monthlyUsage(account.id, '2026-03')).toBe(42);
    expect(await store.monthlyUsage(account.id, '2026-04')).toBe(0);
  });
});

describe('secrecy', () => {
  it('the plaintext key never reaches the database file or its WAL', async () => {
    const account = await store.createAccount({ plan: 'free' });
    const keys = [(await store.createKey(account.id, 'test')).key, (await store.createKey(account.id, 'live')).key];
    const rotated = await store.rotateKey((await store.createKey(account.id, 'test')).record.id);
    keys.push(rotated.key);
    const bytesBeforeClose = readDatabaseFiles();
    await store.close();
    for (const bytes of [bytesBeforeClose, readDatabaseFiles()]) {
      for (const key of keys) {
        expect(bytes.includes(key)).toBe(false);
        expect(bytes.includes(key.slice(9, 52))).toBe(false);
        expect(bytes.includes(hashApiKey(key))).toBe(true); // the search itself works
      }
    }
  });
});

describe('two instances on one file (CLI and server)', () => {
  it('see each other’s writes at once', async () => {
    const server = open();
    const account = await store.createAccount({ plan: 'developer' });
    const { key, record } = await store.createKey(account.id, 'test');
    expect((await server.findActiveKeyByHash(hashApiKey(key)))?.account).toEqual(account);
    const rotated = await store.rotateKey(record.id);
    expect(await server.findActiveKeyByHash(hashApiKey(key))).toBeUndefined();
    expect((await server.findActiveKeyByHash(hashApiKey(rotated.key)))?.key.id).toBe(rotated.record.id);
    await expect(server.rotateKey(record.id)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
  });
});

function readDatabaseFiles(): string {
  return ['', '-wal', '-shm']
    .map((suffix) => `${file}${suffix}`)
    .filter((f) => fs.existsSync(f))
    .map((f) => fs.readFileSync(f).toString('latin1'))
    .join('\n');
}
