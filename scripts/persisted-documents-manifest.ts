import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Where the documents the MCP tools run are written, one operation per .graphql file. */
export const DOCUMENTS_DIR = 'src/mcp/documents';
/** The operator manifest: `{"<sha256 hex of the text>": "<text>"}`, committed. */
export const MANIFEST_FILE = 'schema/persisted-documents.json';

/** A document's text as it is stored and hashed: the file without trailing white space. */
export function documentText(fileText: string): string {
  return fileText.trimEnd();
}

/** The manifest's JSON text for the .graphql files of `dir`, in file-name order, so the output is stable. */
export function manifestText(dir: string): string {
  const manifest: Record<string, string> = {};
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith('.graphql'))
    .sort()) {
    const text = documentText(readFileSync(path.join(dir, name), 'utf8'));
    manifest[createHash('sha256').update(text).digest('hex')] = text;
  }
  return `${JSON.stringify(manifest, null, 2)}\n`;
}
