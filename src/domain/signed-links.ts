import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from './errors';

/**
 * Signed links: a URL that opens one GET of this API without an Authorization header, until it
 * expires. The link's query is the request's own parameters, the key that made it (`keyId`, an id,
 * never the key), its expiry (`expires`, Unix seconds) and `signature`: the base64url HMAC-SHA256,
 * under a server key, of the method, the path and every other parameter in canonical form (sorted
 * by name, each name and value percent-encoded as encodeURIComponent does). Any parameter changed,
 * added or removed, or another path, fails the signature; a client that encodes the same values
 * another way (`%2C` for `,`) still matches, as values are compared decoded.
 */

/** The link's own parameters, beside the request's. */
export const LINK_PARAMS = { keyId: 'keyId', expires: 'expires', signature: 'signature' } as const;

const SIGNATURE_BYTES = 32;
const SIGNATURE_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const EXPIRES_PATTERN = /^\d{1,12}$/;
/** Versioned, so that a later form of links can never verify as this one. */
const SIGNED_FORM = 'measurement-api signed link v1';

export interface LinkTerms {
  /** The path the link opens (the method is GET). */
  readonly path: string;
  /** The request's parameters, as query values. */
  readonly params: Readonly<Record<string, string>>;
  readonly keyId: string;
  /** Unix seconds. */
  readonly expires: number;
}

/** The query string of a link: the terms in canonical order, then the signature. */
export function signedQuery(key: Buffer, terms: LinkTerms): string {
  const entries: [string, string][] = [
    ...Object.entries(terms.params),
    [LINK_PARAMS.keyId, terms.keyId],
    [LINK_PARAMS.expires, String(terms.expires)],
  ];
  const canonical = canonicalQuery(entries);
  return `${canonical}&${LINK_PARAMS.signature}=${signatureOf(key, terms.path, canonical)}`;
}

/** Whether a query carries any of a link's own parameters (and so is judged as a link). */
export function carriesLink(params: URLSearchParams): boolean {
  return Object.values(LINK_PARAMS).some((name) => params.has(name));
}

/** A link whose signature held: the key that made it, and the request's own parameters. */
export interface OpenedLink {
  readonly keyId: string;
  /** The request's parameters, without the link's own. */
  readonly params: readonly [string, string][];
  readonly expiresAt: Date;
}

/**
 * The terms of a link opened on `path`: LINK_INVALID unless its signature is the one `key` gives
 * its other parameters (compared in constant time), then LINK_EXPIRED once `now` has reached its
 * expiry (checked after the signature, so the expiry it names is the one the link was made with).
 */
export function openSignedQuery(key: Buffer, path: string, params: URLSearchParams, now: Date): OpenedLink {
  const entries = [...params];
  const names = new Set(entries.map(([name]) => name));
  if (names.size !== entries.length) throw invalidLink('A signed link names each parameter once; this one repeats one.');
  const signature = params.get(LINK_PARAMS.signature);
  const keyId = params.get(LINK_PARAMS.keyId);
  const expires = params.get(LINK_PARAMS.expires);
  if (signature === null || keyId === null || expires === null) {
    throw invalidLink(
      `A signed link carries ${LINK_PARAMS.keyId}, ${LINK_PARAMS.expires} and ${LINK_PARAMS.signature} together; this one lacks one.`,
    );
  }
  const signed = entries.filter(([name]) => name !== LINK_PARAMS.signature);
  const expected = Buffer.from(signatureOf(key, path, canonicalQuery(signed)), 'base64url');
  const given = SIGNATURE_PATTERN.test(signature) ? Buffer.from(signature, 'base64url') : Buffer.alloc(0);
  if (given.length !== SIGNATURE_BYTES || !timingSafeEqual(given, expected) || !EXPIRES_PATTERN.test(expires)) {
    throw invalidLink(
      'The signed link does not match its signature: a parameter was changed, added or removed, or the signature itself. Use the link exactly as it was made, or make a new one.',
    );
  }
  const expiresAt = new Date(Number(expires) * 1000);
  if (now.getTime() >= expiresAt.getTime()) {
    throw new ApiError('LINK_EXPIRED', `The signed link expired at ${expiresAt.toISOString()}; make a new one with a current key.`, {
      param: LINK_PARAMS.expires,
    });
  }
  const own = new Set<string>(Object.values(LINK_PARAMS));
  return { keyId, params: entries.filter(([name]) => !own.has(name)), expiresAt };
}

function canonicalQuery(entries: readonly [string, string][]): string {
  return [...entries]
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
    .join('&');
}

function signatureOf(key: Buffer, path: string, canonical: string): string {
  return createHmac('sha256', key).update(`${SIGNED_FORM}\nGET ${path}\n${canonical}`).digest('base64url');
}

function invalidLink(message: string): ApiError {
  return new ApiError('LINK_INVALID', message, { param: LINK_PARAMS.signature });
}

/** A link lasts a day unless asked otherwise, a minute at least and 7 days at most (and never past its key's end). */
export const DEFAULT_LINK_SECONDS = 86_400;
export const MIN_LINK_SECONDS = 60;
export const MAX_LINK_SECONDS = 7 * 86_400;

/** The link's expiry in Unix seconds: `expiresIn` from now (checked), and never after the key's end. */
export function linkEnd(expiresIn: number | null | undefined, now: Date, keyEnd: string | null): number {
  const seconds = expiresIn ?? DEFAULT_LINK_SECONDS;
  if (!Number.isInteger(seconds) || seconds < MIN_LINK_SECONDS || seconds > MAX_LINK_SECONDS) {
    throw new ApiError(
      'INVALID_REQUEST',
      `expiresIn is the link's lifetime in seconds, from ${MIN_LINK_SECONDS} to ${MAX_LINK_SECONDS} (7 days); it was ${seconds}.`,
      { param: 'expiresIn' },
    );
  }
  const end = Math.floor(now.getTime() / 1000) + seconds;
  return keyEnd === null ? end : Math.min(end, Math.floor(Date.parse(keyEnd) / 1000));
}
