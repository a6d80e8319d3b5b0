import path from 'node:path';
import { createKeyv } from '@keyv/redis';
import { Keyv } from 'keyv';
import type { Config } from '../../config';
import { RatesCache } from './cache';
import { openKeyvDatabase, SqliteKeyvStore } from './sqlite-keyv-store';

export interface RatesCacheOptions {
  /** Key prefix of the two namespaces (`<prefix>` and `<prefix>-meta`); tests use a unique one per run. */
  prefix?: string;
}

/** The SQLite file of the rates cache; separate from the account database so it can be deleted safely. */
export function ratesCacheFile(config: Config): string {
  return path.join(config.dataDir, 'rates.db');
}

/** The rates cache the configuration names: Redis when REDIS_URL is set, else SQLite under DATA_DIR. */
export function openRatesCache(config: Config, { prefix = 'rates' }: RatesCacheOptions = {}): RatesCache {
  return config.redisUrl === undefined ? openSqliteCache(ratesCacheFile(config), prefix) : openRedisCache(config.redisUrl, prefix);
}

export function openSqliteCache(file: string, prefix = 'rates'): RatesCache {
  const db = openKeyvDatabase(file);
  // One adapter object per namespace (Keyv writes its namespace onto the adapter), one shared connection.
  const keyv = (namespace: string) => new Keyv({ store: new SqliteKeyvStore(db), namespace, throwOnErrors: true });
  return new RatesCache(keyv(prefix), keyv(`${prefix}-meta`), async () => {
    if (db.open) db.close();
  });
}

function openRedisCache(url: string, prefix: string): RatesCache {
  // One adapter (and client) per namespace: two Keyv instances sharing one Redis adapter
  // overwrote each other's namespace and corrupted the key prefixes (docs/stack notes).
  const keyv = (namespace: string) =>
    createKeyv(
      // Fail fast while Redis is down instead of queueing reads behind the reconnect loop.
      { url, disableOfflineQueue: true, socket: { connectTimeout: 5_000 } },
      { namespace, throwOnErrors: true, connectionTimeout: 5_000 },
    );
  const publications = keyv(prefix);
  const meta = keyv(`${prefix}-meta`);
  return new RatesCache(publications, meta, async () => {
    await Promise.allSettled([publications.disconnect(), meta.disconnect()]);
  });
}
