import { describe, expect, it } from 'vitest';
import { documentHash } from '../../src/domain/persisted-query';
import { entryBytes, PersistedDocuments, type SharedDocuments } from '../../src/services/persisted-documents';

/** A shared store in memory that records what it was asked (stands in for Redis where the test is about the order of lookups). */
function recordingShared() {
  const held = new Map<string, string>();
  const calls: string[] = [];
  const shared: SharedDocuments & { held: Map<string, string>; calls: string[] } = {
    held,
    calls,
    get: async (hash) => {
      calls.push(`get ${hash.slice(0, 8)}`);
      return held.get(hash);
    },
    set: async (hash, document, _registrant) => {
      calls.push(`set ${hash.slice(0, 8)}`);
      held.set(hash, document);
    },
    close: async () => undefined,
  };
  return shared;
}

const MANIFEST_DOC = 'query Units { units { id } }';
const MANIFEST = new Map([[documentHash(MANIFEST_DOC), MANIFEST_DOC]]);

describe('PersistedDocuments', () => {
  it('serves a registered document by its hash, and nothing for an unknown hash', () => {
    const store = new PersistedDocuments({ maxBytes: 1024 * 1024 });
    const doc = '{ unit(id: "ft") { id } }';
    expect(store.find(documentHash(doc))).toBeUndefined();
    store.register(documentHash(doc), doc, 'key:a');
    expect(store.find(documentHash(doc))).toBe(doc);
  });

  it('keeps 10,000 distinct registrations within its byte bound, and still serves every manifest entry', () => {
    const maxBytes = 256 * 1024;
    const store = new PersistedDocuments({ manifest: MANIFEST, maxBytes, registrationsPerHour: 10_000 });
    let peak = 0;
    for (let i = 0; i < 10_000; i++) {
      const doc = `{ unit(id: "u${i}") { id name symbol aliases } }`;
      store.register(documentHash(doc), doc, 'key:a');
      peak = Math.max(peak, store.registeredBytes);
    }
    // The figure: 10,000 registrations of ~50 characters would account 3.84 MB (15 times the bound); the store held at most its bound.
    expect(peak).toBeLessThanOrEqual(maxBytes);
    expect(10_000 * entryBytes('{ unit(id: "u9999") { id name symbol aliases } }')).toBeGreaterThan(14 * maxBytes);
    expect(store.find(documentHash(MANIFEST_DOC))).toBe(MANIFEST_DOC);
    // The oldest registrations went first; the newest are held.
    expect(store.find(documentHash('{ unit(id: "u0") { id name symbol aliases } }'))).toBeUndefined();
    expect(store.find(documentHash('{ unit(id: "u9999") { id name symbol aliases } }'))).toBeDefined();
  });

  it('never lets a registration replace a manifest entry', () => {
    const shared = recordingShared();
    const store = new PersistedDocuments({ manifest: MANIFEST, maxBytes: 1024, shared });
    expect(store.register(documentHash(MANIFEST_DOC), MANIFEST_DOC, 'key:a')).toBeUndefined();
    expect(shared.calls).toEqual([]);
    expect(store.registeredBytes).toBe(0);
  });

  it('asks the shared store only for what neither the manifest nor this instance holds, and keeps what it finds there', async () => {
    const shared = recordingShared();
    const doc = '{ categories { id } }';
    shared.held.set(documentHash(doc), doc);
    const store = new PersistedDocuments({ manifest: MANIFEST, maxBytes: 1024 * 1024, shared });
    expect(store.find(documentHash(MANIFEST_DOC))).toBe(MANIFEST_DOC);
    expect(await store.find(documentHash(doc))).toBe(doc);
    expect(store.find(documentHash(doc))).toBe(doc);
    expect(shared.calls).toEqual([`get ${documentHash(doc).slice(0, 8)}`]);
  });

  it('writes a registration to the shared store too', async () => {
    const shared = recordingShared();
    const store = new PersistedDocuments({ maxBytes: 1024 * 1024, shared });
    const doc = '{ health { status } }';
    await store.register(documentHash(doc), doc, 'key:a');
    expect(shared.held.get(documentHash(doc))).toBe(doc);
  });

  it('does not keep a document larger than a quarter of its bound', () => {
    const store = new PersistedDocuments({ maxBytes: 4096 });
    const doc = `{ ${'__typename '.repeat(100)}}`;
    store.register(documentHash(doc), doc, 'key:a');
    expect(store.find(documentHash(doc))).toBeUndefined();
    expect(store.registeredBytes).toBe(0);
  });

  it('keeps at most PERSISTED_DOCUMENTS_PER_KEY_HOUR new documents of one registrant an hour; others, and documents it holds, are not refused', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const shared = recordingShared();
    const store = new PersistedDocuments({ manifest: MANIFEST, maxBytes: 1024 * 1024, shared, registrationsPerHour: 3, now: () => now });
    const doc = (i: number) => `{ unit(id: "flood-${i}") { id } }`;
    for (let i = 0; i < 10; i++) store.register(documentHash(doc(i)), doc(i), 'key:free');
    // The figure: of ten new documents in the hour, three are kept, here and in the shared store.
    const held = await Promise.all(
      [...Array(10).keys()].map(async (i) => ((await store.find(documentHash(doc(i)))) === undefined ? [] : [i])),
    );
    expect(held.flat()).toEqual([0, 1, 2]);
    expect(shared.held.size).toBe(3);
    // A document it holds already is registered again (its use refreshed) without counting.
    store.register(documentHash(doc(0)), doc(0), 'key:free');
    expect(store.find(documentHash(doc(0)))).toBe(doc(0));
    // Another key, and the manifest, are not touched by the flood.
    store.register(documentHash(doc(20)), doc(20), 'key:other');
    expect(store.find(documentHash(doc(20)))).toBe(doc(20));
    expect(store.find(documentHash(MANIFEST_DOC))).toBe(MANIFEST_DOC);
    // The next hour the key registers again.
    now += 3_600_000;
    store.register(documentHash(doc(5)), doc(5), 'key:free');
    expect(store.find(documentHash(doc(5)))).toBe(doc(5));
  });
});
