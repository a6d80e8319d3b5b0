import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPersistedManifest, parsePersistedManifest, PersistedManifestError } from '../../src/data/persisted/manifest';
import { documentHash } from '../../src/domain/persisted-query';
import { ConfigError, loadConfig } from '../../src/config';
import { openPersistedDocuments } from '../../src/data/persisted/open-persisted-documents';

const DOC = 'query Latest { latestRates { date } }';
const HASH = documentHash(DOC);

describe('the persisted-documents manifest', () => {
  it('reads a JSON object of hash → document', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'manifest-'));
    const file = path.join(dir, 'persisted-documents.json');
    writeFileSync(file, JSON.stringify({ [HASH]: DOC }));
    expect([...loadPersistedManifest(file)]).toEqual([[HASH, DOC]]);
  });

  it.each([
    ['a file that is not there', null, /cannot read .*nowhere\.json \(ENOENT\)/],
    ['text that is not JSON', '{', /is not JSON/],
    ['an array', '[]', /must hold a JSON object/],
    ['a key that is no hash', JSON.stringify({ abc: DOC }), /"abc" is not a SHA-256/],
    ['a document that is no string', JSON.stringify({ [HASH]: 5 }), /must be a non-empty string/],
    [
      'a wrong hash',
      JSON.stringify({ [documentHash('{ x }')]: DOC }),
      new RegExp(`is not the SHA-256 of its document \\(that is ${HASH}\\)`),
    ],
  ])('stops start-up on %s, with one line naming the file and the entry', (_, text, message) => {
    const read = () => (text === null ? loadPersistedManifest('/nowhere.json') : parsePersistedManifest(text, 'manifest.json'));
    expect(read).toThrow(PersistedManifestError);
    expect(read).toThrow(message);
    expect(() => read()).toThrow(/^PERSISTED_DOCUMENTS: /);
  });
});

describe('the persisted documents configuration', () => {
  it('defaults to schema/persisted-documents.json when present, 4 MB of registrations, 7 days and 64 MB in Redis, 100 new documents a key an hour', () => {
    const { persistedDocuments } = loadConfig({});
    expect(persistedDocuments).toEqual({
      manifestFile: path.resolve('schema/persisted-documents.json'),
      manifestRequired: false,
      ttlSeconds: 7 * 86_400,
      cacheBytes: 4 * 1024 * 1024,
      sharedBytes: 64 * 1024 * 1024,
      registrationsPerHour: 100,
    });
  });

  it('reads PERSISTED_DOCUMENTS and its TTL_DAYS, CACHE_MB, SHARED_MB and PER_KEY_HOUR, and names a bad one', () => {
    const config = loadConfig({
      PERSISTED_DOCUMENTS: 'tools.json',
      PERSISTED_DOCUMENTS_TTL_DAYS: '30',
      PERSISTED_DOCUMENTS_CACHE_MB: '16',
      PERSISTED_DOCUMENTS_SHARED_MB: '8',
      PERSISTED_DOCUMENTS_PER_KEY_HOUR: '5',
    });
    expect(config.persistedDocuments).toEqual({
      manifestFile: path.resolve('tools.json'),
      manifestRequired: true,
      ttlSeconds: 30 * 86_400,
      cacheBytes: 16 * 1024 * 1024,
      sharedBytes: 8 * 1024 * 1024,
      registrationsPerHour: 5,
    });
    expect(() => loadConfig({ PERSISTED_DOCUMENTS_SHARED_MB: '0' })).toThrow(/PERSISTED_DOCUMENTS_SHARED_MB/);
    expect(() => loadConfig({ PERSISTED_DOCUMENTS_PER_KEY_HOUR: 'many' })).toThrow(/PERSISTED_DOCUMENTS_PER_KEY_HOUR/);
    expect(() => loadConfig({ PERSISTED_DOCUMENTS_TTL_DAYS: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ PERSISTED_DOCUMENTS_CACHE_MB: 'lots' })).toThrow(/PERSISTED_DOCUMENTS_CACHE_MB/);
  });

  it('starts without a manifest when the default file is absent, and stops when a named one is', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'manifest-'));
    const absent = {
      ...loadConfig({ DATA_DIR: dir }),
      persistedDocuments: { ...loadConfig({}).persistedDocuments, manifestFile: path.join(dir, 'none.json') },
    };
    expect(openPersistedDocuments(absent, { shared: false }).manifestSize).toBe(0);
    const named = loadConfig({ DATA_DIR: dir, PERSISTED_DOCUMENTS: path.join(dir, 'none.json') });
    expect(() => openPersistedDocuments(named, { shared: false })).toThrow(PersistedManifestError);
  });
});
