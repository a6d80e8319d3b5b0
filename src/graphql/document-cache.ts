import type { DocumentNode } from 'graphql';

/**
 * Yoga's parse and validation caches, bounded by an estimate of the memory they hold rather than by
 * a count. Yoga's default keeps 1,024 documents for an hour whatever their size, and a parsed
 * document holds a few hundred times its text (graphql-js keeps every token, linked, for
 * locations): distinct documents within the limits then held gigabytes. Validation results live in
 * a WeakMap keyed by the parsed document (Yoga's), so they leave with it.
 */
export interface DocumentCacheOptions {
  /** The estimated bytes all entries may hold together; least recently used entries go first past it. */
  maxBytes: number;
  /** At most this many entries, whatever their size. */
  maxEntries: number;
}

/** A least-recently-used map from document text to a value, bounded by the estimated bytes of its entries. */
export class ByteBoundedCache<V> {
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private total = 0;

  constructor(
    private readonly options: DocumentCacheOptions,
    /** The estimated bytes one entry holds, its key included. */
    private readonly sizeOf: (key: string, value: V) => number,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    // Map keeps insertion order: re-inserting makes this the most recently used.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V): void {
    const bytes = this.sizeOf(key, value);
    this.delete(key);
    // One entry may take at most an eighth of the budget: a few huge documents cannot push out every ordinary one.
    if (bytes > this.options.maxBytes / 8) return;
    this.entries.set(key, { value, bytes });
    this.total += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.options.maxBytes && this.entries.size <= this.options.maxEntries) break;
      this.entries.delete(oldest);
      this.total -= entry.bytes;
    }
  }

  /** The estimated bytes held now (for tests). */
  get bytes(): number {
    return this.total;
  }

  get size(): number {
    return this.entries.size;
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.total -= entry.bytes;
  }
}

/**
 * Bytes one token of a parsed document holds, at most, on graphql 16 (Node 20) for the densest
 * shapes a 16 KiB document can take (`{a a a …}`, `{a{b} a{b} …}`, `a@b`: the node, its name, its
 * location and the token itself; test/graphql/document-cache.test.ts holds the estimate above what
 * these keep), with a margin for the validation errors kept beside an invalid document.
 */
const BYTES_PER_TOKEN = 640;

/** The estimated bytes a parsed document and its text hold: its tokens, counted on the chain graphql-js keeps for locations. */
export function documentBytes(text: string, document: DocumentNode): number {
  let tokens = 0;
  let token = document.loc?.startToken ?? null;
  // Without locations the tokens are not kept; a character is at most one token.
  if (token === null) tokens = text.length;
  for (; token !== null; token = token.next) tokens += 1;
  return 2 * text.length + BYTES_PER_TOKEN * tokens;
}

/** A parse error holds its message, locations and the source text. */
function errorBytes(text: string): number {
  return 4 * text.length + 2048;
}

/**
 * The caches for Yoga's `parserAndValidationCache` option: parsed documents within `maxBytes`
 * (estimated), parse errors within a sixteenth of it.
 */
export function boundedParserCaches(maxBytes: number): {
  documentCache: ByteBoundedCache<DocumentNode>;
  errorCache: ByteBoundedCache<unknown>;
} {
  return {
    documentCache: new ByteBoundedCache<DocumentNode>({ maxBytes, maxEntries: 1024 }, documentBytes),
    errorCache: new ByteBoundedCache<unknown>({ maxBytes: maxBytes / 16, maxEntries: 1024 }, errorBytes),
  };
}

/**
 * What the server's parsed documents may hold, estimated: about 100 documents of 100 tokens, and
 * none over 1 MiB (about 1,600 tokens; larger ones are parsed again each time). Small on purpose:
 * what the cache keeps also raises how far V8 lets the heap grow before it collects, so a larger
 * budget costs more than itself under a flood of distinct documents (docs/benchmarks.md).
 */
export const DOCUMENT_CACHE_BYTES = 8 * 1024 * 1024;
