import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RedisDocuments, sharedEntryBytes } from '../../src/data/persisted/redis-documents';
import { documentHash } from '../../src/domain/persisted-query';
import { PersistedDocuments } from '../../src/services/persisted-documents';

const redisUrl = process.env.TEST_REDIS_URL;
/** A bound for something that happens in the background (a connection), not a time budget. */
const WAIT = { timeout: 10_000, interval: 50 };

/** A made-up document of about `size` characters, distinct for each `i`. */
const documentOf = (i: number, size = 2000) => `{ unit(id: "made-up-${i}") { id } } # ${'x'.repeat(size)}`;

describe.skipIf(!redisUrl)(
  redisUrl
    ? 'registered documents in Redis are bounded by bytes and per registrant'
    : 'registered documents in Redis (skipped: set TEST_REDIS_URL)',
  () => {
    // A prefix of this suite's own: other suites share the database.
    const prefix = `wt-streams-apq-${randomUUID()}`;
    const client = createClient({ url: redisUrl });
    const opened: RedisDocuments[] = [];
    const open = async (name: string, options: { maxBytes: number; registrationsPerHour: number }) => {
      const redis = new RedisDocuments({ url: redisUrl!, prefix: `${prefix}:${name}`, ttlSeconds: 600, ...options });
      opened.push(redis);
      await vi.waitFor(() => expect(redis.available).toBe(true), WAIT);
      return redis;
    };
    beforeAll(() => client.connect());
    afterAll(async () => {
      await Promise.all(opened.map((redis) => redis.close()));
      for await (const keys of client.scanIterator({ MATCH: `${prefix}:*`, COUNT: 1000 })) if (keys.length > 0) await client.del(keys);
      await client.close();
    });

    it('keeps the accounted bytes within PERSISTED_DOCUMENTS_SHARED_MB, evicting the least recently used first', async () => {
      const maxBytes = 64 * 1024;
      const redis = await open('bytes', { maxBytes, registrationsPerHour: 10_000 });
      await redis.set(documentHash(documentOf(0)), documentOf(0), 'key:a');
      await redis.set(documentHash(documentOf(1)), documentOf(1), 'key:a');
      let peak = 0;
      for (let i = 2; i < 200; i++) {
        // A hit on the first keeps it the most recently used.
        expect(await redis.get(documentHash(documentOf(0)))).toBe(documentOf(0));
        await redis.set(documentHash(documentOf(i)), documentOf(i), 'key:a');
        peak = Math.max(peak, (await redis.held()).bytes);
      }
      // The figure: 200 documents of 2 KB account about 500 KB, eight times the 64 KiB budget; Redis held at most the budget.
      expect(200 * sharedEntryBytes(documentOf(1))).toBeGreaterThan(7 * maxBytes);
      expect(peak).toBeLessThanOrEqual(maxBytes);
      const { documents } = await redis.held();
      expect(documents).toBe(Math.floor(maxBytes / sharedEntryBytes(documentOf(1))));
      expect(await redis.get(documentHash(documentOf(0)))).toBe(documentOf(0));
      expect(await redis.get(documentHash(documentOf(1)))).toBeUndefined();
      expect(await redis.get(documentHash(documentOf(199)))).toBe(documentOf(199));
      // What is evicted is deleted: the keys under the prefix are the documents held and the bookkeeping.
      let keys = 0;
      for await (const found of client.scanIterator({ MATCH: `${prefix}:bytes:*`, COUNT: 1000 })) keys += found.length;
      expect(keys).toBe(documents + 4);
    });

    it("refuses a registrant's new documents past PERSISTED_DOCUMENTS_PER_KEY_HOUR, counted by every instance together", async () => {
      const first = await open('count', { maxBytes: 1024 * 1024, registrationsPerHour: 5 });
      const second = await open('count', { maxBytes: 1024 * 1024, registrationsPerHour: 5 });
      for (let i = 0; i < 10; i++) await (i % 2 === 0 ? first : second).set(documentHash(documentOf(i)), documentOf(i), 'key:free');
      expect((await first.held()).documents).toBe(5);
      // A document held already is registered again without counting; another registrant is not refused.
      await first.set(documentHash(documentOf(0)), documentOf(0), 'key:free');
      await first.set(documentHash(documentOf(50)), documentOf(50), 'key:other');
      expect((await first.held()).documents).toBe(6);
    });

    it('never evicts the manifest: a flood of registrations through the store leaves it served', async () => {
      const manifestDocument = 'query Units { units { id } }';
      const redis = await open('manifest', { maxBytes: 32 * 1024, registrationsPerHour: 10_000 });
      const store = new PersistedDocuments({
        manifest: new Map([[documentHash(manifestDocument), manifestDocument]]),
        maxBytes: 16 * 1024,
        shared: redis,
        registrationsPerHour: 10_000,
      });
      for (let i = 0; i < 100; i++) await store.register(documentHash(documentOf(i)), documentOf(i), `ip:${i}`);
      expect((await redis.held()).bytes).toBeLessThanOrEqual(32 * 1024);
      expect(store.find(documentHash(manifestDocument))).toBe(manifestDocument);
      expect(await redis.get(documentHash(manifestDocument))).toBeUndefined();
    });
  },
);
