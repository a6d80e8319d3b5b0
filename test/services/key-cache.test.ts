import { describe, expect, it } from 'vitest';
import { authenticate } from '../../src/services/auth';
import { createKeyCache } from '../../src/services/key-cache';
import { generateApiKey, hashApiKey } from '../../src/domain/keys';
import { ApiError } from '../../src/domain/errors';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A store of active keys by hash with a keys revision, counting its calls. */
function fakeStore(keys: string[]) {
  const active = new Map(keys.map((key, i) => [hashApiKey(key), { key: { id: `key_${i}` }, account: { id: `acc_${i}`, plan: 'free' } }]));
  const store = {
    revision: 1,
    lookups: 0,
    revisionReads: 0,
    down: false,
    async keysRevision() {
      store.revisionReads += 1;
      if (store.down) throw new Error('store down');
      return store.revision;
    },
    async findActiveKeyByHash(hash: string) {
      store.lookups += 1;
      if (store.down) throw new Error('store down');
      return active.get(hash) as never;
    },
    revoke(key: string) {
      active.delete(hashApiKey(key));
      store.revision += 1;
    },
  };
  return store;
}

async function failure(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return (error as ApiError).message;
}

describe('key cache by presented text', () => {
  const key = generateApiKey('test');

  it('answers a key it found from memory, without the store, within one keys revision', async () => {
    const store = fakeStore([key]);
    const cache = createKeyCache(store);
    expect((await authenticate(`Bearer ${key}`, cache, 'development')).keyId).toBe('key_0');
    await nextTurn();
    expect((await authenticate(`Bearer ${key}`, cache, 'development')).keyId).toBe('key_0');
    expect(store.lookups).toBe(1);
    expect(store.revisionReads).toBe(2); // still once per event-loop turn
  });

  it('refuses a revoked key at once: the next turn reads the new revision', async () => {
    const store = fakeStore([key]);
    const cache = createKeyCache(store);
    await authenticate(`Bearer ${key}`, cache, 'development');
    await nextTurn();
    store.revoke(key);
    expect(await failure(authenticate(`Bearer ${key}`, cache, 'development'))).toBe('The API key is unknown or has been revoked.');
  });

  it('gives altered, other-environment and unknown keys the full check’s answers, also after the real key was cached', async () => {
    const store = fakeStore([key]);
    const cache = createKeyCache(store);
    await authenticate(`Bearer ${key}`, cache, 'development');
    const flipped = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
    expect(await failure(authenticate(`Bearer ${flipped}`, cache, 'development'))).toBe(
      'The API key is malformed: check that it was copied completely.',
    );
    expect(await failure(authenticate(`Bearer ${key}`, cache, 'production'))).toBe(
      'The API key is not valid for this environment: this server accepts only msr_live_ keys (API_ENV=production); the key sent is a msr_test_ key.',
    );
    const live = generateApiKey('live');
    expect(await failure(authenticate(`Bearer ${live}`, cache, 'development'))).toBe(
      'The API key is not valid for this environment: this server accepts only msr_test_ keys (API_ENV=development); the key sent is a msr_live_ key.',
    );
    expect(await failure(authenticate(`Bearer ${generateApiKey('test')}`, cache, 'development'))).toBe(
      'The API key is unknown or has been revoked.',
    );
  });

  it('a malformed key costs no store call, so it keeps its 401 while the store is down', async () => {
    const store = fakeStore([key]);
    const cache = createKeyCache(store);
    await authenticate(`Bearer ${key}`, cache, 'development');
    await nextTurn();
    store.down = true;
    const reads = store.revisionReads;
    expect(await failure(authenticate('Bearer msr_test_nonsense', cache, 'development'))).toBe(
      'The API key is malformed: check that it was copied completely.',
    );
    expect(store.revisionReads).toBe(reads);
    // A cached key still waits for the revision check, so a store that cannot answer is not bypassed.
    await expect(authenticate(`Bearer ${key}`, cache, 'development')).rejects.toThrow('store down');
  });
});
