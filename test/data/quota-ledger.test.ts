import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratePostgres } from '../../src/data/postgres-migrations';
import { createPostgresPool, openPostgresStore } from '../../src/data/postgres-store';
import { ApiError } from '../../src/domain/errors';
import type { AccountStore } from '../../src/services/account-store';
import { freshDatabase, postgresTitle, TEST_DATABASE_URL, type FreshDatabase } from '../helpers/postgres';

/**
 * Charges cancellable by their id (PostgreSQL): whichever of a charge and its cancellation reaches
 * the database first, the usage ends as if the charge never happened, and a cancellation counts
 * once however often it is retried.
 */
describe.skipIf(!TEST_DATABASE_URL)(postgresTitle('quota charges cancelled by id'), () => {
  const MONTH = '2026-03';
  let database: FreshDatabase;
  let store: AccountStore;

  beforeAll(async () => {
    database = await freshDatabase();
    const pool = createPostgresPool(database.url, { max: 1, queryDeadlineMs: 0 });
    await migratePostgres(pool);
    await pool.end();
    store = openPostgresStore(database.url);
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  const account = async () => (await store.createAccount({ plan: 'free' })).id;

  it('a charge, then its cancellation (twice): the usage is back where it was', async () => {
    const id = await account();
    expect(await store.consumeQuotaUpTo(id, MONTH, 10, 3, 'c-1')).toEqual({ granted: 3, used: 3 });
    expect(await store.consumeQuotaUpTo(id, MONTH, 10, 2, 'c-2')).toEqual({ granted: 2, used: 5 });
    await store.cancelCharges!(['c-1']);
    await store.cancelCharges!(['c-1', 'c-1']);
    expect(await store.monthlyUsage(id, MONTH)).toBe(2);
  });

  it('a cancellation that arrives first: the charge grants nothing when it comes', async () => {
    const id = await account();
    await store.cancelCharges!(['early']);
    expect(await store.consumeQuotaUpTo(id, MONTH, 10, 4, 'early')).toEqual({ granted: 0, used: 0 });
    expect(await store.monthlyUsage(id, MONTH)).toBe(0);
  });

  it('a partial grant is taken back exactly; a refused one takes nothing', async () => {
    const id = await account();
    expect(await store.consumeQuotaUpTo(id, MONTH, 5, 8, 'p-1')).toEqual({ granted: 5, used: 5 });
    expect(await store.consumeQuotaUpTo(id, MONTH, 5, 1, 'p-2')).toEqual({ granted: 0, used: 5 });
    await store.cancelCharges!(['p-2']);
    expect(await store.monthlyUsage(id, MONTH)).toBe(5);
    await store.cancelCharges!(['p-1']);
    expect(await store.monthlyUsage(id, MONTH)).toBe(0);
  });

  it('racing charges and cancellations of half of them: the usage is exactly the others', async () => {
    const id = await account();
    const ids = Array.from({ length: 40 }, (_, i) => `r-${i}`);
    await Promise.all(
      ids.flatMap((charge, i) => [
        store.consumeQuotaUpTo(id, MONTH, 1000, 1, charge),
        ...(i % 2 === 0 ? [store.cancelCharges!([charge])] : []),
      ]),
    );
    expect(await store.monthlyUsage(id, MONTH)).toBe(20);
  });

  it('an unknown account is NOT_FOUND, as without an id', async () => {
    await expect(store.consumeQuotaUpTo('acc_missing', MONTH, 10, 1, 'x-1')).rejects.toBeInstanceOf(ApiError);
    await expect(store.consumeQuotaUpTo('acc_missing', MONTH, 10, 1, 'x-2')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
