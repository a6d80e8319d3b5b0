import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPersistedManifest, parsePersistedManifest, PersistedManifestError } from '../../src/data/persisted/manifest';
import { documentHash } from '../../src/domain/persisted-query';

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
    ['a wrong hash', JSON.stringify({ [documentHash('{ x }')]: DOC }), new RegExp(`is not the SHA-256 of its document \\(that is ${HASH}\\)`)],
  ])('stops start-up on %s, with one line naming the file and the entry', (_, text, message) => {
    const read = () => (text === null ? loadPersistedManifest('/nowhere.json') : parsePersistedManifest(text, 'manifest.json'));
    expect(read).toThrow(PersistedManifestError);
    expect(read).toThrow(message);
    expect(() => read()).toThrow(/^PERSISTED_DOCUMENTS: /);
  });
});
