import fs from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SQLITE_MIGRATIONS } from '../../src/data/migrations';
import { POSTGRES_MIGRATIONS } from '../../src/data/postgres-migrations';
import type { AccountStore } from '../../src/services/account-store';
import { hashApiKey } from '../../src/domain/keys';
import { BACKENDS, type BackendInstance } from './backends';

const NOW = new Date('2026-03-15T12:00:00.000Z');

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(backend.title('the account store'), () => {
    let instance: BackendInstance;
    let store: AccountStore;
    const opened: AccountStore[] = [];
    const open = () => {
      const s = instance.open({ now: () => NOW });
      opened.push(s);
      return s;
    };
    const file = () => instance.location.slice('sqlite:'.length);

    beforeAll(async () => {
      instance = await backend.create();
    });
    afterAll(async () => {
      await instance?.destroy();
    });
    beforeEach(() => {
      store = open();
    });
    afterEach(async () => {
      for (const s of opened.splice(0)) await s.close();
      await instance.reset();
    });

    describe('opening', () => {
      if (backend.name === 'sqlite')
        it('creates the parent directory, uses WAL and records the schema version', () => {
          const raw = new BetterSqlite3(file(), { readonly: true });
          expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
          expect(raw.pragma('user_version', { simple: true })).toBe(SQLITE_MIGRATIONS.length);
          expect(raw.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all()).toEqual([
            'accounts',
            'api_keys',
            'oauth_records',
            'revisions',
            'sessions',
            'usage',
            'usage_days',
            'webhook_deliveries',
            'webhook_endpoints',
            'webhook_events',
          ]);
          raw.close();
        });

      if (backend.name === 'postgres')
        it('records the schema version and creates the same tables', async () => {
          expect(await instance.query('SELECT max(version) AS version FROM schema_migrations')).toEqual([
            { version: POSTGRES_MIGRATIONS.length },
          ]);
          const tables = await instance.query<{ table_name: string }>(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
          );
          expect(tables.map((t) => t.table_name)).toEqual([
            'accounts',
            'api_keys',
            'oauth_records',
            'rates_keyv',
            'revisions',
            'schema_migrations',
            'sessions',
            'usage',
            'usage_days',
            'webhook_deliveries',
            'webhook_endpoints',
            'webhook_events',
          ]);
        });

      if (backend.name === 'sqlite')
        it('a file written by the first release (user_version 1) is migrated in place and keeps its accounts and keys', async () => {
          await store.close();
          fs.rmSync(file());
          const raw = new BetterSqlite3(file());
          raw.exec(SQLITE_MIGRATIONS[0]!);
          raw.pragma('user_version = 1');
          raw
            .prepare(
              "INSERT INTO accounts (id, email, plan, created_at) VALUES ('acc_old', 'old@example.com', 'developer', '2025-01-01T00:00:00.000Z')",
            )
            .run();
          raw
            .prepare(
              "INSERT INTO api_keys (id, account_id, env, key_hash, created_at) VALUES ('key_old', 'acc_old', 'test', ?, '2025-01-01T00:00:00.000Z')",
            )
            .run(hashApiKey('msr_test_old'));
          raw.prepare("INSERT INTO usage (account_id, month, used) VALUES ('acc_old', '2026-03', 7)").run();
          raw.close();
          const reopened = open();
          expect((await reopened.findActiveKeyByHash(hashApiKey('msr_test_old')))?.account).toMatchObject({
            id: 'acc_old',
            plan: 'developer',
          });
          expect(await reopened.listKeys('acc_old')).toEqual([expect.objectContaining({ id: 'key_old', tail: null, lastUsedAt: null })]);
          expect(await reopened.consumeQuotaUpTo('acc_old', '2026-03', 10, 5)).toEqual({ granted: 3, used: 10 });
          const before = await reopened.keysRevision();
          await reopened.revokeKey('key_old');
          expect(await reopened.keysRevision()).toBeGreaterThan(before);
          const check = new BetterSqlite3(file(), { readonly: true });
          expect(check.pragma('user_version', { simple: true })).toBe(SQLITE_MIGRATIONS.length);
          check.close();
        });

      it('reopening an up-to-date database applies nothing', async () => {
        const again = open();
        expect(await again.findAccountById('acc_missing')).toBeUndefined();
      });
    });

    describe('accounts', () => {
      it('creates, finds by id and by email (case-insensitively), and changes the plan', async () => {
        const account = await store.createAccount({ email: ' Ann@Example.com ', plan: 'free' });
        expect(account).toEqual({
          id: expect.stringMatching(/^acc_/),
          email: 'ann@example.com',
          plan: 'free',
          createdAt: NOW.toISOString(),
        });
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
        await expect(store.createAccount({ email: 'ANN@example.com', plan: 'developer' })).rejects.toMatchObject({
          code: 'INVALID_REQUEST',
          message: expect.stringContaining('already exists'),
        });
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
        expect(record).toEqual({
          id: expect.stringMatching(/^key_/),
          accountId: account.id,
          env: 'test',
          createdAt: NOW.toISOString(),
          revokedAt: null,
          replacedBy: null,
          expiresAt: null,
        });
        expect(await store.findKeyById(record.id)).toEqual(record);
        expect(await store.findActiveKeyByHash(hashApiKey(key))).toEqual({ key: record, account });
        expect(await store.findActiveKeyByHash(hashApiKey(`${key}x`))).toBeUndefined();
      });

      it('with a bound, live keys are counted: keys revoked or past their end make room; unknown accounts are NOT_FOUND', async () => {
        const account = await store.createAccount({ plan: 'free' });
        await store.createKey(account.id, 'test', null, 2);
        await store.createKey(account.id, 'test', new Date(NOW.getTime() + 1000).toISOString(), 2);
        await expect(store.createKey(account.id, 'test', null, 2)).rejects.toMatchObject({
          code: 'INVALID_REQUEST',
          message: expect.stringMatching(/at most 2 live keys/),
        });
        const later = instance.open({ now: () => new Date(NOW.getTime() + 2000) });
        opened.push(later);
        expect((await later.createKey(account.id, 'test', null, 2)).record.accountId).toBe(account.id);
        await expect(later.createKey(account.id, 'test', null, 2)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
        await expect(store.createKey('acc_missing', 'test', null, 2)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      });

      it('keys created at once never pass the bound (PostgreSQL: from two instances)', async () => {
        const account = await store.createAccount({ plan: 'free' });
        // Two SQLite handles in one process would wait on each other synchronously; its instances are processes.
        const other = backend.name === 'postgres' ? open() : store;
        const results = await Promise.allSettled(
          Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? store : other).createKey(account.id, 'test', null, 5)),
        );
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
        expect(results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.code)).toEqual(
          Array(7).fill('INVALID_REQUEST'),
        );
        expect((await store.listKeys(account.id)).length).toBe(5);
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
        if (backend.name === 'sqlite') {
          await instance.query(
            "CREATE TRIGGER fail_revoke BEFORE UPDATE OF revoked_at ON api_keys BEGIN SELECT RAISE(ABORT, 'disk on fire'); END",
          );
        } else {
          await instance.query(
            "CREATE FUNCTION fail_revoke() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk on fire'; END $$",
          );
          await instance.query(
            'CREATE TRIGGER fail_revoke BEFORE UPDATE OF revoked_at ON api_keys FOR EACH ROW EXECUTE FUNCTION fail_revoke()',
          );
        }
        try {
          await expect(store.rotateKey(old.record.id)).rejects.toThrow('disk on fire');
          expect(await instance.query('SELECT count(*) AS n FROM api_keys')).toEqual([{ n: backend.name === 'sqlite' ? 1 : '1' }]);
          expect(await store.findActiveKeyByHash(hashApiKey(old.key))).toBeDefined();
        } finally {
          await instance.query(backend.name === 'sqlite' ? 'DROP TRIGGER fail_revoke' : 'DROP FUNCTION fail_revoke CASCADE');
        }
      });
    });

    describe('keys revision', () => {
      it('moves on revocation, rotation and a plan change made by another store on the database, and not on usage or last use', async () => {
        const other = open();
        const account = await store.createAccount({ email: 'rev@example.com', plan: 'free' });
        const a = await store.createKey(account.id, 'test');
        const b = await store.createKey(account.id, 'test');
        let seen = await store.keysRevision();
        const moved = async () => {
          const now = await store.keysRevision();
          const changed = now !== seen;
          seen = now;
          return changed;
        };
        await other.consumeQuota(account.id, '2026-03', 10, 2);
        await other.recordKeyUse([a.record.id], '2026-03-15T12:00:00.000Z');
        expect(await moved()).toBe(false);
        await other.revokeKey(a.record.id);
        expect(await moved()).toBe(true);
        await other.revokeKey(a.record.id); // already revoked: nothing changes
        expect(await moved()).toBe(false);
        await other.rotateKey(b.record.id);
        expect(await moved()).toBe(true);
        await other.setPlan('rev@example.com', 'developer');
        expect(await moved()).toBe(true);
      });
    });

    describe('usage', () => {
      it('is 0 for a month without conversions and the stored count otherwise', async () => {
        const account = await store.createAccount({ plan: 'free' });
        expect(await store.monthlyUsage(account.id, '2026-03')).toBe(0);
        await instance.query('INSERT INTO usage (account_id, month, used) VALUES (?, ?, ?)', [account.id, '2026-03', 42]);
        expect(await store.monthlyUsage(account.id, '2026-03')).toBe(42);
        expect(await store.monthlyUsage(account.id, '2026-04')).toBe(0);
      });
    });

    if (backend.name === 'sqlite')
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

    if (backend.name === 'postgres')
      describe('secrecy in PostgreSQL', () => {
        it('no table holds a plaintext key: every row of every table, as text', async () => {
          const account = await store.createAccount({ email: 'ann@example.com', plan: 'free' });
          const keys = [(await store.createKey(account.id, 'test')).key, (await store.createKey(account.id, 'live')).key];
          keys.push((await store.rotateKey((await store.createKey(account.id, 'test')).record.id)).key);
          await store.createSession('d'.repeat(64), account.id, NOW.toISOString());
          await store.setSessionFlash('d'.repeat(64), 'sealed-elsewhere');
          const tables = await instance.query<{ table_name: string }>(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
          );
          let text = '';
          for (const { table_name } of tables) {
            for (const row of await instance.query<{ row: string }>(`SELECT t::text AS row FROM "${table_name}" t`)) text += `${row.row}\n`;
          }
          for (const key of keys) {
            expect(text.includes(key)).toBe(false);
            expect(text.includes(key.slice(9, 52))).toBe(false);
            expect(text.includes(hashApiKey(key))).toBe(true); // the search itself works
          }
        });
      });

    describe('two instances on one database (CLI and server)', () => {
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
        .map((suffix) => `${file()}${suffix}`)
        .filter((f) => fs.existsSync(f))
        .map((f) => fs.readFileSync(f).toString('latin1'))
        .join('\n');
    }
  });
}
