/**
 * Writes the operator manifest of persisted documents (schema/persisted-documents.json): every
 * document of src/mcp/documents keyed by the SHA-256 hex digest of its text, the form Apollo's
 * persisted queries and the MCP tools use. With --check, writes nothing and exits 1 when the
 * committed file differs from the documents.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { DOCUMENTS_DIR, MANIFEST_FILE, manifestText } from './persisted-documents-manifest';

const expected = manifestText(DOCUMENTS_DIR);
if (!process.argv.includes('--check')) {
  writeFileSync(MANIFEST_FILE, expected);
  console.log(`wrote ${MANIFEST_FILE}`);
} else {
  let current = '';
  try {
    current = readFileSync(MANIFEST_FILE, 'utf8');
  } catch {
    // a missing file is drift too
  }
  if (current !== expected) {
    console.error(`${MANIFEST_FILE} differs from ${DOCUMENTS_DIR}: run npm run documents:print and commit it.`);
    process.exit(1);
  }
}
