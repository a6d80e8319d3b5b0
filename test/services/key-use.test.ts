import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/data/sqlite-store';
import type { AccountStore } from '../../src/services/account-store';
import { createKeyUseRecorder, KEY_USE_RESOLUTION_MS } from '../../src/services/key-use';

let dir: string;
let store: AccountStore;
let now: Date;
let writes: (readonly string[])[];

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'key-use-'));
  const real = openSqliteStore(path.join(dir, 'measurement.db'));
  writes = [];
  // The real store, with its recordKeyUse calls counted.
  store = { ...real, recordKeyUse: (ids, at) => (writes.push(ids), real.recordKeyUse(ids, at)) };
  now = new Date('2026-03-15T12:00:00.000Z');
});
afterEach(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('last use of keys', () => {
  it('is never written on the request path, and many uses of many keys become one batched write', async () => {
    const account = await store.createAccount({ plan: 'free' });
    const keys = await Promise.all([1, 2, 3].map(() => store.createKey(account.id, 'test')));
    const recorder = createKeyUseRecorder(
      store,
      () => now,
      (e) => {
        throw e;
      },
    );
    for (let i = 0; i < 100; i++) for (const { record } of keys) recorder.note(record.id);
    expect(writes).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    await recorder.flush();
    expect(writes).toHaveLength(1);
    expect([...writes[0]!].sort()).toEqual(keys.map((k) => k.record.id).sort());
    expect((await store.listKeys(account.id)).map((k) => k.lastUsedAt)).toEqual(Array(3).fill(now.toISOString()));
  });

  it(`is written at most once per key per ${KEY_USE_RESOLUTION_MS / 60_000} minutes`, async () => {
    const account = await store.createAccount({ plan: 'free' });
    const { record } = await store.createKey(account.id, 'test');
    const recorder = createKeyUseRecorder(
      store,
      () => now,
      (e) => {
        throw e;
      },
    );
    const useAt = async (ms: number) => {
      now = new Date(Date.parse('2026-03-15T12:00:00.000Z') + ms);
      recorder.note(record.id);
      await recorder.flush();
    };
    await useAt(0);
    await useAt(KEY_USE_RESOLUTION_MS - 1);
    await useAt(KEY_USE_RESOLUTION_MS);
    expect(writes).toHaveLength(2);
    expect((await store.listKeys(account.id))[0]?.lastUsedAt).toBe(
      new Date(Date.parse('2026-03-15T12:00:00.000Z') + KEY_USE_RESOLUTION_MS).toISOString(),
    );
  });

  it('a failed write is reported, not thrown into a request', async () => {
    const errors: unknown[] = [];
    const failing: AccountStore = {
      ...store,
      recordKeyUse: async () => {
        throw new Error('disk full');
      },
    };
    const recorder = createKeyUseRecorder(
      failing,
      () => now,
      (e) => errors.push(e),
    );
    recorder.note('key_x');
    await recorder.flush();
    expect(errors).toHaveLength(1);
  });
});
