import { readFileSync } from 'node:fs';
import { documentHash, isDocumentHash } from '../../domain/persisted-query';

/** A manifest that cannot be used: its one-line message names the file and the entry at fault. */
export class PersistedManifestError extends Error {
  override name = 'PersistedManifestError';
}

/**
 * Reads the operator's manifest of persisted documents: a JSON object `{"<sha256 hex>": "<document>"}`.
 * Every hash must be the SHA-256 of its document's UTF-8 text in lower-case hex; a file that is not
 * such an object, or a wrong hash, stops start-up (a manifest that only looks right would answer
 * PERSISTED_QUERY_NOT_FOUND to the tools built on it).
 */
export function loadPersistedManifest(file: string): Map<string, string> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new PersistedManifestError(
      `PERSISTED_DOCUMENTS: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  return parsePersistedManifest(text, file);
}

/** The manifest's entries from its text; `file` names it in errors. */
export function parsePersistedManifest(text: string, file: string): Map<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new PersistedManifestError(`PERSISTED_DOCUMENTS: ${file} is not JSON (${(error as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new PersistedManifestError(`PERSISTED_DOCUMENTS: ${file} must hold a JSON object {"<sha256 hex>": "<document>"}`);
  }
  const documents = new Map<string, string>();
  for (const [hash, document] of Object.entries(parsed)) {
    if (!isDocumentHash(hash))
      throw new PersistedManifestError(
        `PERSISTED_DOCUMENTS: ${file}: ${JSON.stringify(hash)} is not a SHA-256 in 64 lower-case hex digits`,
      );
    if (typeof document !== 'string' || document === '')
      throw new PersistedManifestError(`PERSISTED_DOCUMENTS: ${file}: the document of ${hash} must be a non-empty string`);
    const actual = documentHash(document);
    if (actual !== hash)
      throw new PersistedManifestError(`PERSISTED_DOCUMENTS: ${file}: ${hash} is not the SHA-256 of its document (that is ${actual})`);
    documents.set(hash, document);
  }
  return documents;
}
