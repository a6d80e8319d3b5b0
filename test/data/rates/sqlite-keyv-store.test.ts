import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Database } from 'better-sqlite3';
import { Keyv } from 'keyv';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openKeyvDatabase, SqliteKeyvStore } from '../../../src/data/rates/sqlite-keyv-store';

let dir: string;
let db: Database;
const keyv = (namespace: string) => new Keyv({ store: new SqliteKeyvStore(db), namespace, throwOnErrors: true });

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'keyv-sqlite-'));
  db = openKeyvDatabase(path.join(dir, 'cache.db'));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the better-sqlite3 keyv store', () => {
  it('round-trips values through Keyv: get, set, has, delete', async () => {
    const k = keyv('a');
    expect(await k.get('x')).toBeUndefined();
    await k.set('x', { USD: '1.2345', list: [1, 2] });
    expect(await k.get('x')).toEqual({ USD: '1.2345', list: [1, 2] });
    expect(await k.has('x')).toBe(true);
    await k.set('x', 'replaced');
    expect(await k.get('x')).toBe('replaced');
    expect(await k.delete('x')).toBe(true);
    expect(await k.has('x')).toBe(false);
  });

  it('getMany answers in the order asked, undefined where missing, repeated keys included', async () => {
    const k = keyv('a');
    await k.setMany([
      { key: 'b', value: 2 },
      { key: 'a', value: 1 },
    ]);
    expect(await k.getMany(['a', 'missing', 'b', 'a'])).toEqual([1, undefined, 2, 1]);
    expect(await k.hasMany(['a', 'missing'])).toEqual([true, false]);
  });

  it('namespaces on one connection are separate, and clear() empties only its own', async () => {
    const rates = keyv('rates');
    const meta = keyv('rates-meta');
    await rates.set('k', 'rates value');
    await meta.set('k', 'meta value');
    expect(await rates.get('k')).toBe('rates value');
    await rates.clear();
    expect(await rates.get('k')).toBeUndefined();
    expect(await meta.get('k')).toBe('meta value');
  });

  it('honours a TTL set through Keyv (expiry is kept in the value)', async () => {
    const k = keyv('a');
    await k.set('short', 'v', 1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await k.get('short')).toBeUndefined();
  });

  it('setMany stores 7,000 entries in one call', async () => {
    const k = keyv('rates');
    const entries = Array.from({ length: 7000 }, (_, i) => ({ key: `d${i}`, value: { USD: String(i) } }));
    await k.setMany(entries);
    expect(await k.get('d0')).toEqual({ USD: '0' });
    expect(await k.get('d6999')).toEqual({ USD: '6999' });
  });

  it('a second connection to the same file (another process) sees the writes', async () => {
    await keyv('rates').set('2026-04-13', { USD: '1.2345' });
    const other = openKeyvDatabase(path.join(dir, 'cache.db'));
    try {
      const k = new Keyv({ store: new SqliteKeyvStore(other), namespace: 'rates' });
      expect(await k.get('2026-04-13')).toEqual({ USD: '1.2345' });
    } finally {
      other.close();
    }
  });
});
