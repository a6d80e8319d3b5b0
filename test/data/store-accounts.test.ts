import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AccountStore } from '../../src/services/account-store';
import { BACKENDS, type BackendInstance } from './backends';

const NOW = new Date('2026-03-15T12:00:00.000Z');
const PHC = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g';
const HASH_A = 'a'.repeat(64);
const HASH_B = 'b'.repeat(64);

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(backend.title('accounts, sessions and key listings'), () => {
    let instance: BackendInstance;
    let store: AccountStore;

    beforeAll(async () => {
      instance = await backend.create();
    });
    afterAll(async () => {
      await instance?.destroy();
    });
    beforeEach(() => {
      store = instance.open({ now: () => NOW });
    });
    afterEach(async () => {
      await store.close();
      await instance.reset();
    });

    describe('passwords', () => {
      it('an account created with a password hash gives it back for log-in, by email case-insensitively', async () => {
        const account = await store.createAccount({ email: 'ann@example.com', plan: 'free', passwordHash: PHC });
        expect(await store.findCredentials('ANN@example.com')).toEqual({ account, passwordHash: PHC });
        expect(await store.findCredentials('bob@example.com')).toBeUndefined();
      });

      it('an account made without a password (the CLI) has a null hash until one is set', async () => {
        const account = await store.createAccount({ email: 'cli@example.com', plan: 'developer' });
        expect((await store.findCredentials('cli@example.com'))?.passwordHash).toBeNull();
        await store.setPasswordHash(account.id, PHC);
        expect((await store.findCredentials('cli@example.com'))?.passwordHash).toBe(PHC);
      });

      it('setting a password ends every session of that account and no other', async () => {
        const ann = await store.createAccount({ email: 'ann@example.com', plan: 'free', passwordHash: PHC });
        const bob = await store.createAccount({ email: 'bob@example.com', plan: 'free', passwordHash: PHC });
        await store.createSession(HASH_A, ann.id, NOW.toISOString());
        await store.createSession(HASH_B, bob.id, NOW.toISOString());
        await store.setPasswordHash(ann.id, PHC);
        expect(await store.findSession(HASH_A)).toBeUndefined();
        expect(await store.findSession(HASH_B)).toBeDefined();
        await expect(store.setPasswordHash('acc_missing', PHC)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      });

      it('refuses anything but an Argon2id PHC string (never a plaintext password)', async () => {
        await expect(store.createAccount({ email: 'x@example.com', plan: 'free', passwordHash: 'correct horse battery' })).rejects.toThrow(
          /check constraint/i,
        );
      });
    });

    describe('sessions', () => {
      it('are created, found, touched and deleted by the token hash', async () => {
        const account = await store.createAccount({ email: 'ann@example.com', plan: 'free' });
        await store.createSession(HASH_A, account.id, '2026-03-15T12:00:00.000Z');
        expect(await store.findSession(HASH_A)).toEqual({
          accountId: account.id,
          createdAt: '2026-03-15T12:00:00.000Z',
          lastSeenAt: '2026-03-15T12:00:00.000Z',
        });
        await store.touchSession(HASH_A, '2026-03-15T12:10:00.000Z');
        expect((await store.findSession(HASH_A))?.lastSeenAt).toBe('2026-03-15T12:10:00.000Z');
        await store.deleteSession(HASH_A);
        expect(await store.findSession(HASH_A)).toBeUndefined();
      });

      it('expired sessions are swept: created before the absolute limit or last seen before the idle limit', async () => {
        const account = await store.createAccount({ email: 'ann@example.com', plan: 'free' });
        await store.createSession(HASH_A, account.id, '2026-03-15T00:00:00.000Z');
        await store.createSession(HASH_B, account.id, '2026-03-15T11:00:00.000Z');
        await store.createSession('c'.repeat(64), account.id, '2026-03-15T11:50:00.000Z');
        await store.touchSession(HASH_A, '2026-03-15T11:59:00.000Z');
        expect(await store.deleteExpiredSessions('2026-03-15T01:00:00.000Z', '2026-03-15T11:30:00.000Z')).toBe(2);
        expect(await store.findSession(HASH_A)).toBeUndefined();
        expect(await store.findSession(HASH_B)).toBeUndefined();
        expect(await store.findSession('c'.repeat(64))).toBeDefined();
      });

      it('a one-time message is taken once: the second take is null', async () => {
        const account = await store.createAccount({ email: 'ann@example.com', plan: 'free' });
        await store.createSession(HASH_A, account.id, NOW.toISOString());
        expect(await store.takeSessionFlash(HASH_A)).toBeNull();
        await store.setSessionFlash(HASH_A, 'sealed');
        expect(await store.takeSessionFlash(HASH_A)).toBe('sealed');
        expect(await store.takeSessionFlash(HASH_A)).toBeNull();
      });
    });

    describe('key listing', () => {
      it('lists an account’s keys oldest first with their last 4 characters, revoked ones included', async () => {
        const account = await store.createAccount({ plan: 'free' });
        const other = await store.createAccount({ plan: 'free' });
        const first = await store.createKey(account.id, 'test');
        const second = await store.createKey(account.id, 'live');
        await store.createKey(other.id, 'test');
        await store.revokeKey(first.record.id);
        const keys = await store.listKeys(account.id);
        expect(keys.map((k) => [k.id, k.tail, k.revokedAt !== null])).toEqual([
          [first.record.id, first.key.slice(-4), true],
          [second.record.id, second.key.slice(-4), false],
        ]);
        expect(keys.every((k) => k.lastUsedAt === null)).toBe(true);
      });

      it('records last use only forward in time', async () => {
        const account = await store.createAccount({ plan: 'free' });
        const { record } = await store.createKey(account.id, 'test');
        await store.recordKeyUse([record.id], '2026-03-15T12:05:00.000Z');
        await store.recordKeyUse([record.id], '2026-03-15T12:01:00.000Z');
        expect((await store.listKeys(account.id))[0]?.lastUsedAt).toBe('2026-03-15T12:05:00.000Z');
        await store.recordKeyUse([record.id, 'key_unknown'], '2026-03-16T08:00:00.000Z');
        expect((await store.listKeys(account.id))[0]?.lastUsedAt).toBe('2026-03-16T08:00:00.000Z');
      });
    });
  });
}
