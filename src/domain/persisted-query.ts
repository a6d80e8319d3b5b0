import { createHash } from 'node:crypto';
import { ApiError } from './errors';

/**
 * Apollo's automatic persisted queries (APQ) as a pure decision over a request's parameters: what
 * the request asks of the persisted-document store. A document is named by the SHA-256 of its exact
 * UTF-8 text, in lower-case hex, sent as `extensions.persistedQuery.sha256Hash` with `version: 1`.
 *
 * - no `persistedQuery` extension: an ordinary request (`none`);
 * - a hash without a document: the document registered under it is wanted (`lookup`);
 * - a document with its hash: the hash is checked against the text and the pair registered (`register`);
 * - anything else in the extension (another version, a hash that is not 64 hex digits, a hash that
 *   is not the document's): INVALID_REQUEST.
 */
export type PersistedQueryStep =
  | { readonly kind: 'none' }
  | { readonly kind: 'lookup'; readonly hash: string }
  | { readonly kind: 'register'; readonly hash: string; readonly document: string };

/** The one version of Apollo's protocol. */
export const PERSISTED_QUERY_VERSION = 1;

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** The name of a document: SHA-256 of its UTF-8 text, lower-case hex. */
export function documentHash(document: string): string {
  return createHash('sha256').update(document, 'utf8').digest('hex');
}

/** True for a well-formed document name (64 lower-case hex digits). */
export function isDocumentHash(value: unknown): value is string {
  return typeof value === 'string' && SHA256_HEX.test(value);
}

/** What a request with this `query` and `extensions` asks of the store; throws INVALID_REQUEST for a malformed extension or a hash that is not the document's. */
export function persistedQueryStep(query: unknown, extensions: unknown): PersistedQueryStep {
  if (!isObject(extensions) || extensions['persistedQuery'] == null) return { kind: 'none' };
  const persisted = extensions['persistedQuery'];
  if (!isObject(persisted)) throw invalid('extensions.persistedQuery must be an object {"version": 1, "sha256Hash": "<64 hex digits>"}.');
  if (persisted['version'] !== PERSISTED_QUERY_VERSION) {
    throw invalid(
      `extensions.persistedQuery.version must be ${PERSISTED_QUERY_VERSION} (got ${JSON.stringify(persisted['version']) ?? 'nothing'}).`,
    );
  }
  const hash = persisted['sha256Hash'];
  if (!isDocumentHash(hash))
    throw invalid('extensions.persistedQuery.sha256Hash must be the SHA-256 of the document in 64 lower-case hex digits.');
  if (query == null || query === '') return { kind: 'lookup', hash };
  if (typeof query !== 'string') return { kind: 'none' };
  if (documentHash(query) !== hash) throw invalid('extensions.persistedQuery.sha256Hash is not the SHA-256 of the query sent with it.');
  return { kind: 'register', hash, document: query };
}

/** The refusal of a hash no store holds: the client sends the document with its hash next (Apollo's clients match the message and the code). */
export function persistedQueryNotFound(): ApiError {
  return new ApiError('PERSISTED_QUERY_NOT_FOUND', 'PersistedQueryNotFound');
}

function invalid(message: string): ApiError {
  return new ApiError('INVALID_REQUEST', message, { param: 'extensions' });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
