import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/domain/keys';
import type { AccountStore } from '../../src/services/account-store';
import { BACKENDS, type BackendInstance } from './backends';

const NOW = new Date('2026-03-15T12:00:00.000Z');
const LATER = '2026-03-15T13:00:00.000Z';
const NEXT_WEEK = '2026-03-22T12:00:00.000Z';
const DAY = '2026-03-15';

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(backend.title('key ends and daily usage in the store'), () => {
    let instance: BackendInstance;
    let store: AccountStore;
    const opened: AccountStore[] = [];
    const open = () => {
      const s = instance.open({ now: () => NOW });
      opened.push(s);
      return s;
    };

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

    describe('key ends', () => {
      it('a key created with an expiry keeps it, is listed with it, and is still found by its hash after it (to be refused as expired)', async () => {
        const account = await store.createAccount({ plan: 'free' });
        const { key, record } = await store.createKey(account.id, 'test', LATER);
        expect(record.expiresAt).toBe(LATER);
        expect((await store.findActiveKeyByHash(hashApiKey(key)))?.key).toEqual(record);
        expect(await store.listKeys(account.id)).toEqual([expect.objectContaining({ id: record.id, expiresAt: LATER })]);
      });

      it('a rotation with a grace leaves the old key working, not revoked, until the grace ends; the new key has no end', async () => {
        const account = await store.createAccount({ plan: 'developer' });
        const old = await store.createKey(account.id, 'test');
        const rotated = await store.rotateKey(old.record.id, LATER);
        expect(rotated.replaced).toEqual({ ...old.record, replacedBy: rotated.record.id, expiresAt: LATER, revokedAt: null });
        expect(rotated.record.expiresAt).toBeNull();
        expect((await store.findActiveKeyByHash(hashApiKey(old.key)))?.key.expiresAt).toBe(LATER);
        expect((await store.findActiveKeyByHash(hashApiKey(rotated.key)))?.key.id).toBe(rotated.record.id);
      });

      it('the grace ends no later than the old key’s own expiry, and the new key inherits that expiry', async () => {
        const account = await store.createAccount({ plan: 'developer' });
        const old = await store.createKey(account.id, 'test', LATER);
        const rotated = await store.rotateKey(old.record.id, NEXT_WEEK);
        expect(rotated.replaced.expiresAt).toBe(LATER);
        expect(rotated.record.expiresAt).toBe(LATER);
      });

      it('a key in its grace cannot be rotated again, and revoking it ends it at once', async () => {
        const account = await store.createAccount({ plan: 'developer' });
        const old = await store.createKey(account.id, 'test');
        const rotated = await store.rotateKey(old.record.id, LATER);
        await expect(store.rotateKey(old.record.id, LATER)).rejects.toMatchObject({
          code: 'INVALID_REQUEST',
          message: expect.stringContaining(rotated.record.id),
        });
        await store.revokeKey(old.record.id);
        expect(await store.findActiveKeyByHash(hashApiKey(old.key))).toBeUndefined();
      });

      it('an expired key cannot be rotated', async () => {
        const account = await store.createAccount({ plan: 'developer' });
        const { record } = await store.createKey(account.id, 'test', '2026-03-15T11:00:00.000Z');
        await expect(store.rotateKey(record.id)).rejects.toMatchObject({
          code: 'INVALID_REQUEST',
          message: expect.stringContaining('expired at'),
        });
      });

      it('a rotation with a grace moves the keys revision, seen by another store on the database', async () => {
        const other = open();
        const account = await store.createAccount({ plan: 'developer' });
        const old = await store.createKey(account.id, 'test');
        const before = await store.keysRevision();
        await other.rotateKey(old.record.id, LATER);
        expect(await store.keysRevision()).toBeGreaterThan(before);
      });
    });

    describe('daily usage', () => {
      it('a charge with a day counts what it grants on that day, in the same step as the month', async () => {
        const account = await store.createAccount({ plan: 'free' });
        expect(await store.consumeQuotaUpTo(account.id, '2026-03', 10, 4, undefined, undefined, DAY)).toEqual({ granted: 4, used: 4 });
        // Past the limit: only what is granted counts, never what was refused.
        expect(await store.consumeQuotaUpTo(account.id, '2026-03', 10, 9, undefined, undefined, DAY)).toEqual({ granted: 6, used: 10 });
        expect(await store.consumeQuotaUpTo(account.id, '2026-03', 10, 1, undefined, undefined, DAY)).toEqual({ granted: 0, used: 10 });
        expect(await store.dailyUsage(account.id, '2026-03-01', '2026-03-31')).toEqual([
          { day: DAY, delivered: 10, refusedQuota: 0, refusedRate: 0 },
        ]);
      });

      if (backend.name === 'postgres')
        it('a charge through the ledger counts its day, and its cancellation takes the day back too', async () => {
          const account = await store.createAccount({ plan: 'free' });
          expect(await store.consumeQuotaUpTo(account.id, '2026-03', 10, 3, 'c-1', undefined, DAY)).toEqual({ granted: 3, used: 3 });
          expect(await store.consumeQuotaUpTo(account.id, '2026-03', 10, 2, 'c-2', undefined, DAY)).toEqual({ granted: 2, used: 5 });
          await store.cancelCharges!(['c-2']);
          expect(await store.monthlyUsage(account.id, '2026-03')).toBe(3);
          expect(await store.dailyUsage(account.id, DAY, DAY)).toEqual([{ day: DAY, delivered: 3, refusedQuota: 0, refusedRate: 0 }]);
        });

      it('refusals add up per account and day, in one transaction, and a day range reads oldest first', async () => {
        const a = await store.createAccount({ plan: 'free' });
        const b = await store.createAccount({ plan: 'free' });
        await store.recordRefusals([
          { accountId: a.id, day: DAY, quota: 2, rate: 0 },
          { accountId: b.id, day: DAY, quota: 0, rate: 5 },
          { accountId: a.id, day: '2026-03-14', quota: 0, rate: 1 },
        ]);
        await store.recordRefusals([{ accountId: a.id, day: DAY, quota: 1, rate: 3 }]);
        await store.consumeQuotaUpTo(a.id, '2026-03', 10, 7, undefined, undefined, DAY);
        expect(await store.dailyUsage(a.id, '2026-03-01', '2026-03-31')).toEqual([
          { day: '2026-03-14', delivered: 0, refusedQuota: 0, refusedRate: 1 },
          { day: DAY, delivered: 7, refusedQuota: 3, refusedRate: 3 },
        ]);
        expect(await store.dailyUsage(a.id, DAY, DAY)).toHaveLength(1);
        expect(await store.dailyUsage(b.id, '2026-03-01', '2026-03-31')).toEqual([
          { day: DAY, delivered: 0, refusedQuota: 0, refusedRate: 5 },
        ]);
      });

      it('a day outside the charge’s month is refused as a programming error', async () => {
        const account = await store.createAccount({ plan: 'free' });
        await expect(store.consumeQuotaUpTo(account.id, '2026-03', 10, 1, undefined, undefined, '2026-04-01')).rejects.toBeInstanceOf(
          TypeError,
        );
        await expect(store.consumeQuotaUpTo(account.id, '2026-03', 10, 1, undefined, undefined, '2026-03-32')).rejects.toBeInstanceOf(
          TypeError,
        );
      });
    });
  });
}
