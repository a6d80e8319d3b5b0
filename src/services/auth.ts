import type { Account, AccountStore, ApiKeyRecord } from './account-store';
import { ApiError } from '../domain/errors';
import { hashApiKey, keyEnvFor, parseApiKey } from '../domain/keys';
import { hasExpired } from '../domain/key-lifetime';
import type { KeyCache } from './key-cache';

/** Who is calling: the account (plan, quota) and the key it used. */
export interface Principal {
  account: Account;
  keyId: string;
  /** When the key stops working (its expiry, or its grace's end after a rotation); null: never. */
  expiresAt: string | null;
}

/** The protection space of API keys (the realm of the edge's WWW-Authenticate challenge). */
export const KEY_REALM = 'measurement-api';

/** Longer than any key with a scheme: refuse before splitting an attacker-sized string. */
const MAX_HEADER_LENGTH = 200;

/**
 * Resolves the Authorization header to a principal, or throws UNAUTHORIZED or KEY_EXPIRED
 * (contract sections 2, 6 and 12). Format, checksum and environment are checked before the key is hashed once and looked
 * up in one query. Messages say what is wrong and never repeat the key. With a key cache, text it
 * already found active in this keys revision skips the parse (nothing else can hit). A key past its
 * end is refused with KEY_EXPIRED, by the clock on every request (a cached key too).
 */
export async function authenticate(
  authorization: string | null | undefined,
  store: Pick<AccountStore, 'findActiveKeyByHash'> | KeyCache,
  apiEnv: 'development' | 'production',
  clock: () => Date = () => new Date(),
): Promise<Principal> {
  const header = authorization?.trim() ?? '';
  if (header === '') {
    throw new ApiError('UNAUTHORIZED', 'An API key is required: send Authorization: Bearer <key>.', {
      challenge: { realm: KEY_REALM, invalid: false },
    });
  }
  const parts = header.length > MAX_HEADER_LENGTH ? [] : header.split(/ +/);
  if (parts.length !== 2 || parts[0]!.toLowerCase() !== 'bearer') {
    throw invalidKey('The Authorization header must be exactly: Bearer <key>.');
  }
  const token = parts[1]!;
  const cache = 'knownToken' in store ? store : undefined;
  const expected = keyEnvFor(apiEnv);
  // The environment is checked on a hit too: the cache does not know which server asked.
  const pending = token.startsWith(`msr_${expected}_`) ? cache?.knownToken(token) : undefined;
  const known = pending && (await pending);
  if (known) return principalOf(known, clock());
  const parsed = parseApiKey(token);
  if (!parsed) throw invalidKey('The API key is malformed: check that it was copied completely.');
  if (parsed.env !== expected) {
    throw invalidKey(
      `The API key is not valid for this environment: this server accepts only msr_${expected}_ keys (API_ENV=${apiEnv}); the key sent is a msr_${parsed.env}_ key.`,
    );
  }
  const found = await store.findActiveKeyByHash(hashApiKey(token));
  if (!found) throw invalidKey('The API key is unknown or has been revoked.');
  return principalOf(found, clock());
}

/** How a KEY_EXPIRED message names the key and says what to do: the Authorization header's key, by default. */
export interface KeyWording {
  subject: string;
  remedy: string;
}
const HEADER_KEY: KeyWording = { subject: 'The API key', remedy: '; use a current key, or ask for a new one.' };

/** The principal of a key found active, or KEY_EXPIRED once `now` has reached its end. */
export function principalOf(found: { key: ApiKeyRecord; account: Account }, now: Date, wording: KeyWording = HEADER_KEY): Principal {
  const expiresAt = found.key.expiresAt;
  if (hasExpired(expiresAt, now)) {
    const how = found.key.replacedBy === null ? 'expired' : 'was replaced by a rotation and its grace ended';
    throw new ApiError('KEY_EXPIRED', `${wording.subject} ${how} at ${expiresAt}${wording.remedy}`, {
      challenge: { realm: KEY_REALM, invalid: true },
    });
  }
  return { account: found.account, keyId: found.key.id, expiresAt };
}

/**
 * The principal of a key the cache found active in its last revision, without reading the revision
 * (KeyCache.unconfirmedToken): undefined for anything else, which `authenticate` then checks in
 * full. The caller holds the answer until a statement sent after this call found `revision`
 * unchanged.
 */
export function unconfirmedPrincipal(
  authorization: string | null | undefined,
  cache: KeyCache,
  apiEnv: 'development' | 'production',
  clock: () => Date = () => new Date(),
): { principal: Principal; revision: number } | undefined {
  if (!authorization || authorization.length > MAX_HEADER_LENGTH) return undefined;
  const parts = authorization.trim().split(/ +/);
  if (parts.length !== 2 || parts[0]!.toLowerCase() !== 'bearer' || !parts[1]!.startsWith(`msr_${keyEnvFor(apiEnv)}_`)) return undefined;
  const hit = cache.unconfirmedToken(parts[1]!);
  // A key past its end is left to `authenticate`, which refuses it with KEY_EXPIRED.
  if (!hit || hasExpired(hit.found.key.expiresAt, clock())) return undefined;
  return { principal: { account: hit.found.account, keyId: hit.found.key.id, expiresAt: hit.found.key.expiresAt }, revision: hit.revision };
}

/** UNAUTHORIZED for a key that was sent but is not valid (the challenge says invalid_token). */
export function invalidKey(message: string): ApiError {
  return new ApiError('UNAUTHORIZED', message, { challenge: { realm: KEY_REALM, invalid: true } });
}
