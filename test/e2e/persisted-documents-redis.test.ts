import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config';
import { RedisDocuments } from '../../src/data/persisted/redis-documents';
import { documentHash } from '../../src/domain/persisted-query';
import { PersistedDocuments, PERSISTED_DOCUMENTS_BYTES } from '../../src/services/persisted-documents';
import { createTestApp, type TestApp } from '../helpers/app';
import { frontServer, rawRequest } from '../helpers/http';
import { tcpProxy, type TcpProxy } from '../helpers/tcp-proxy';

const redisUrl = process.env.TEST_REDIS_URL;
/** A bound for something that happens in the background (a connection), not a time budget. */
const WAIT = { timeout: 10_000, interval: 50 };
const persisted = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });

interface Instance {
  app: TestApp;
  server: ReturnType<typeof frontServer>;
  redis: RedisDocuments;
  origin: string;
}

/** An instance whose persisted documents are shared through `url` under `prefix`. */
async function instance(url: string, prefix: string): Promise<Instance> {
  const { ttlSeconds, sharedBytes, registrationsPerHour } = loadConfig({}).persistedDocuments;
  const redis = new RedisDocuments({ url, prefix, ttlSeconds, maxBytes: sharedBytes, registrationsPerHour });
  const app = await createTestApp(
    { PUBLIC_RATE_LIMIT: '100000' },
    { persistedDocuments: new PersistedDocuments({ maxBytes: PERSISTED_DOCUMENTS_BYTES, shared: redis }) },
  );
  const server = frontServer(app.app);
  await vi.waitFor(() => expect(redis.available).toBe(true), WAIT);
  return { app, server, redis, origin: await server.origin() };
}

async function close(instance: Instance | undefined) {
  if (!instance) return;
  await instance.server.close();
  await instance.app.close();
  await instance.redis.close();
}

function post(to: Instance, body: unknown) {
  return rawRequest(to.origin, 'POST', '/graphql', { 'content-type': 'application/json' }, JSON.stringify(body));
}
function getHash(to: Instance, hash: string) {
  return rawRequest(to.origin, 'GET', `/graphql?extensions=${encodeURIComponent(JSON.stringify(persisted(hash)))}`, {
    accept: 'application/json',
  });
}

describe.skipIf(!redisUrl)(
  redisUrl ? 'persisted documents shared through Redis' : 'persisted documents shared through Redis (skipped: set TEST_REDIS_URL)',
  () => {
    const prefix = `apq-test-${randomUUID()}`;
    let proxy: TcpProxy;
    let a: Instance;
    let b: Instance;

    beforeAll(async () => {
      proxy = await tcpProxy(redisUrl!);
      a = await instance(redisUrl!, prefix);
      b = await instance(proxy.url, prefix);
    });
    afterAll(async () => {
      await close(a);
      await close(b);
      await proxy?.close();
      const client = createClient({ url: redisUrl });
      await client.connect();
      for await (const keys of client.scanIterator({ MATCH: `${prefix}:*`, COUNT: 1000 })) if (keys.length > 0) await client.del(keys);
      await client.close();
    });

    it('serves on one instance a hash registered on the other, by GET', async () => {
      const document = '{ unit(id: "mi") { id } }';
      const hash = documentHash(document);
      expect((await getHash(b, hash)).text).toContain('PERSISTED_QUERY_NOT_FOUND');
      expect((await post(a, { query: document, extensions: persisted(hash) })).status).toBe(200);
      const served = await getHash(b, hash);
      expect(JSON.parse(served.text).data).toEqual({ unit: { id: 'mile' } });
    });

    it('keeps registrations in Redis with the configured TTL (days)', async () => {
      const document = '{ unit(id: "km") { id } }';
      await post(a, { query: document, extensions: persisted(documentHash(document)) });
      const client = createClient({ url: redisUrl });
      await client.connect();
      const ttl = await client.ttl(`${prefix}:${documentHash(document)}`);
      await client.close();
      expect(ttl).toBeGreaterThan(6 * 86_400);
      expect(ttl).toBeLessThanOrEqual(7 * 86_400);
    });

    it('answers from memory while its Redis is stalled: no 5xx, within the Redis deadline, and a miss is PERSISTED_QUERY_NOT_FOUND', async () => {
      const held = '{ unit(id: "yd") { id } }';
      await post(b, { query: held, extensions: persisted(documentHash(held)) });
      const elsewhere = '{ unit(id: "in") { id } }';
      await post(a, { query: elsewhere, extensions: persisted(documentHash(elsewhere)) });
      proxy.stall();
      try {
        const started = performance.now();
        const fromMemory = await getHash(b, documentHash(held));
        const missed = await getHash(b, documentHash(elsewhere));
        const fresh = '{ unit(id: "ft") { id name } }';
        const registered = await post(b, { query: fresh, extensions: persisted(documentHash(fresh)) });
        const elapsed = performance.now() - started;
        expect(JSON.parse(fromMemory.text).data).toEqual({ unit: { id: 'yard' } });
        expect(JSON.parse(missed.text).errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
        expect(registered.status).toBe(200);
        expect(JSON.parse((await getHash(b, documentHash(fresh))).text).data).toEqual({ unit: { id: 'foot', name: expect.any(String) } });
        for (const answer of [fromMemory, missed, registered]) expect(answer.status).toBeLessThan(500);
        // Three requests, the first to meet the stall waiting the 250 ms deadline, the rest refused at once by the breaker.
        expect(elapsed).toBeLessThan(2_000);
      } finally {
        proxy.unstall();
      }
      await vi.waitFor(() => expect(b.redis.available).toBe(true), WAIT);
      expect(JSON.parse((await getHash(b, documentHash(elsewhere))).text).data).toEqual({ unit: { id: 'inch' } });
    });
  },
);
