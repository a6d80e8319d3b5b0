import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Account-page sessions: the token is 32 CSPRNG bytes in the cookie; the store keeps
 * only its SHA-256. Everything else a session needs is derived from the token, so the database
 * alone can neither log in nor forge a form: the CSRF token is an HMAC-like derivation of it, and
 * the one-time message (a new key) is encrypted with a key derived from it.
 */
export const SESSION_COOKIE = 'msr_session';
/** A session unused for this long ends. */
export const SESSION_IDLE_MS = 30 * 60 * 1000;
/** A session ends this long after log-in, used or not. */
export const SESSION_ABSOLUTE_MS = 12 * 60 * 60 * 1000;
/** last_seen_at is written at most this often per session, not on every page view. */
export const SESSION_TOUCH_MS = 60 * 1000;

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export function newSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Only well-formed tokens are hashed and looked up. */
export function isSessionToken(value: string | undefined): value is string {
  return value !== undefined && TOKEN.test(value);
}

export function sessionTokenHash(token: string): string {
  return createHash('sha256').update(`session:${token}`).digest('hex');
}

/** Why a session is over at `now`, or undefined while it is valid. */
export function sessionExpiry(session: { createdAt: string; lastSeenAt: string }, now: Date): 'idle' | 'absolute' | undefined {
  const t = now.getTime();
  if (t - Date.parse(session.createdAt) >= SESSION_ABSOLUTE_MS) return 'absolute';
  if (t - Date.parse(session.lastSeenAt) >= SESSION_IDLE_MS) return 'idle';
  return undefined;
}

/** The per-session CSRF token: derived from the session token, so it needs no storage and cannot be guessed. */
export function csrfTokenFor(sessionToken: string): string {
  return createHash('sha256').update(`csrf:${sessionToken}`).digest('base64url');
}

export function csrfTokenMatches(sessionToken: string, sent: string | null | undefined): boolean {
  if (typeof sent !== 'string') return false;
  const expected = Buffer.from(csrfTokenFor(sessionToken));
  const actual = Buffer.from(sent);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

function flashKey(sessionToken: string): Buffer {
  return Buffer.from(hkdfSync('sha256', sessionToken, 'measurement-api', 'account-page flash', 32));
}

/** AES-256-GCM under a key derived from the session token: `iv.tag.ciphertext`, base64url. */
export function sealFlash(sessionToken: string, message: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', flashKey(sessionToken), iv);
  const body = Buffer.concat([cipher.update(message, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join('.');
}

/** The message, or undefined when it was not sealed for this session (or was tampered with). */
export function openFlash(sessionToken: string, sealed: string): string | undefined {
  const [iv, tag, body] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
  if (!iv || !tag || !body) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', flashKey(sessionToken), iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
