import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { migrateDatabase, openStore } from '../../src/data/open-store';
import { keyEnvFor } from '../../src/domain/keys';
import { currentMonth } from '../../src/domain/quota';
import { createRateLimiters } from '../../src/http/limits/rate-limit';
import { createLogger } from '../../src/logger';
import type { AccountStore } from '../../src/services/account-store';
import { frontServer } from '../helpers/http';
import { freshDatabase, postgresTitle, TEST_DATABASE_URL, type FreshDatabase } from '../helpers/postgres';
import { tableRates } from '../helpers/table-rates';

const REDIS_URL = process.env['TEST_REDIS_URL'];
const NOW = new Date('2024-01-08T12:00:00Z');
/** Made-up publications in the ECB's form (not ECB data). */
const PUBLICATIONS = [{ date: '2024-01-05', rates: { USD: '1.0921', JPY: '158.29' } }];

interface Instance {
  store: AccountStore;
  origin: string;
  close(): Promise<void>;
}

/** One server as main.ts builds it, on the shared PostgreSQL database and (when given) Redis. */
async function startInstance(databaseUrl: string, keyPrefix: string): Promise<Instance> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mcp-instance-'));
  const config = loadConfig({ DATA_DIR: dataDir, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', ...(REDIS_URL ? { REDIS_URL } : {}) });
  const store = openStore(config);
  const limiters = await createRateLimiters({
    publicPerMinute: config.publicRateLimit,
    keyPerSecond: config.keyRateLimit,
    redisUrl: REDIS_URL,
    keyPrefix,
  });
  const app = createApp({ config, store, rates: tableRates(PUBLICATIONS), limiters, logger: createLogger('silent'), clock: () => NOW });
  const server = frontServer(app);
  return {
    store,
    origin: await server.origin(),
    async close() {
      await server.close();
      await limiters.close();
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describe.skipIf(!TEST_DATABASE_URL)(
  postgresTitle('two instances on one PostgreSQL database (and Redis when TEST_REDIS_URL is set)'),
  () => {
    let database: FreshDatabase;
    let instances: Instance[] = [];

    beforeAll(async () => {
      database = await freshDatabase();
      await migrateDatabase(loadConfig({ DATABASE_URL: database.url }));
      const prefix = `mcp-test-${randomBytes(4).toString('hex')}`;
      instances = [await startInstance(database.url, prefix), await startInstance(database.url, prefix)];
    });
    afterAll(async () => {
      for (const instance of instances) await instance.close();
      await database?.drop();
    });

    it('serve one client alternately: each request goes to the other instance, and the quota is charged once per conversion', async () => {
      const [a, b] = instances as [Instance, Instance];
      const account = await a.store.createAccount({ plan: 'developer' });
      const { key } = await a.store.createKey(account.id, keyEnvFor('development'));
      const served: string[] = [];
      let turn = 0;
      // Every request of the client to the next instance in turn, as a round-robin load balancer sends them.
      const alternate = (url: string | URL, init?: RequestInit) => {
        const origin = [a.origin, b.origin][turn++ % 2]!;
        served.push(origin);
        const target = new URL(url);
        return fetch(`${origin}${target.pathname}`, init);
      };
      const transport = new StreamableHTTPClientTransport(new URL(`${a.origin}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
        fetch: alternate,
      });
      const client = new Client({ name: 'measurement-api-tests', version: '1.0.0' });
      await client.connect(transport);
      expect((await client.listTools()).tools).toHaveLength(5);
      const results: CallToolResult[] = [];
      for (let i = 0; i < 4; i += 1)
        results.push(
          (await client.callTool({ name: 'convert', arguments: { value: '100', from: 'USD', to: 'JPY', decimals: 2 } })) as CallToolResult,
        );
      for (const result of results) expect(result.structuredContent).toMatchObject({ result: { value: '14494.09', unit: 'JPY' } });
      expect(new Set(served)).toEqual(new Set([a.origin, b.origin]));
      expect(await b.store.monthlyUsage(account.id, currentMonth(NOW))).toBe(4);
      await client.close();
    });
  },
);
