import manifest from '../../schema/persisted-documents.json' with { type: 'json' };

/** The operations the MCP tools run, each a document of the operator manifest (schema/persisted-documents.json). */
export type McpOperation = 'McpConvert' | 'McpConvertCurrency' | 'McpRates' | 'McpFindUnits' | 'McpFindCurrencies' | 'McpRateSeriesSummary';

export interface PersistedDocument {
  /** The SHA-256 hex digest of `text`: its key in the manifest. */
  readonly hash: string;
  readonly text: string;
}

const byOperation = new Map<string, PersistedDocument>();
for (const [hash, text] of Object.entries(manifest as Record<string, string>)) {
  const name = /^query (\w+)/.exec(text)?.[1];
  if (name !== undefined) byOperation.set(name, { hash, text });
}

/** The manifest's document of this operation; a TypeError names one the manifest lacks (run npm run documents:print). */
export function persistedDocument(operation: McpOperation): PersistedDocument {
  const found = byOperation.get(operation);
  if (!found) throw new TypeError(`The operator manifest has no document for ${operation}: run npm run documents:print.`);
  return found;
}
