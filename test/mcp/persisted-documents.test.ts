import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql';
import { persistedDocument, type McpOperation } from '../../src/mcp/documents';
import { DOCUMENTS_DIR, MANIFEST_FILE, manifestText } from '../../scripts/persisted-documents-manifest';

const committed = JSON.parse(readFileSync(MANIFEST_FILE, 'utf8')) as Record<string, string>;
const OPERATIONS: McpOperation[] = [
  'McpConvert',
  'McpConvertCurrency',
  'McpRates',
  'McpFindUnits',
  'McpFindCurrencies',
  'McpRateSeriesSummary',
];

describe('the operator manifest of persisted documents', () => {
  it('is the one the documents of src/mcp/documents make (run npm run documents:print when this fails)', () => {
    expect(readFileSync(MANIFEST_FILE, 'utf8')).toBe(manifestText(DOCUMENTS_DIR));
  });

  it('keys each document by the SHA-256 hex digest of its text', () => {
    for (const [hash, text] of Object.entries(committed)) expect(createHash('sha256').update(text).digest('hex')).toBe(hash);
  });

  it('holds a document valid against the schema for every operation the tools run', () => {
    for (const operation of OPERATIONS) {
      const { hash, text } = persistedDocument(operation);
      expect(committed[hash]).toBe(text);
      expect(validate(schema, parse(text)).map((e) => e.message)).toEqual([]);
    }
  });
});
