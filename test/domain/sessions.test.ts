import { describe, expect, it } from 'vitest';
import {
  csrfTokenFor,
  csrfTokenMatches,
  isSessionToken,
  newSessionToken,
  openFlash,
  sealFlash,
  sessionExpiry,
  sessionTokenHash,
  SESSION_ABSOLUTE_MS,
  SESSION_IDLE_MS,
} from '../../src/domain/sessions';

const at = (ms: number) => new Date(Date.parse('2026-03-15T12:00:00.000Z') + ms);
const started = { createdAt: at(0).toISOString(), lastSeenAt: at(0).toISOString() };

describe('session tokens', () => {
  it('are 32 random bytes in base64url, distinct, and stored only as a hash that is not the token', () => {
    const a = newSessionToken();
    const b = newSessionToken();
    expect(Buffer.from(a, 'base64url')).toHaveLength(32);
    expect(a).not.toBe(b);
    expect(isSessionToken(a)).toBe(true);
    expect(sessionTokenHash(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(sessionTokenHash(a)).not.toContain(a);
  });

  it('anything but a well-formed token is not looked up', () => {
    for (const bad of [undefined, '', 'x', `${newSessionToken()}=`, 'a'.repeat(44), '../'.repeat(15)])
      expect(isSessionToken(bad)).toBe(false);
  });
});

describe('expiry', () => {
  it('ends a session idle for the idle period', () => {
    expect(sessionExpiry(started, at(SESSION_IDLE_MS - 1))).toBeUndefined();
    expect(sessionExpiry(started, at(SESSION_IDLE_MS))).toBe('idle');
  });

  it('ends a session at the absolute limit however active it is', () => {
    const active = { ...started, lastSeenAt: at(SESSION_ABSOLUTE_MS - 1000).toISOString() };
    expect(sessionExpiry(active, at(SESSION_ABSOLUTE_MS - 1))).toBeUndefined();
    expect(sessionExpiry(active, at(SESSION_ABSOLUTE_MS))).toBe('absolute');
  });
});

describe('CSRF token', () => {
  it('is derived from the session token: it matches its own session only', () => {
    const token = newSessionToken();
    expect(csrfTokenMatches(token, csrfTokenFor(token))).toBe(true);
    expect(csrfTokenMatches(newSessionToken(), csrfTokenFor(token))).toBe(false);
    expect(csrfTokenMatches(token, '')).toBe(false);
    expect(csrfTokenMatches(token, null)).toBe(false);
    expect(csrfTokenFor(token)).not.toBe(sessionTokenHash(token));
  });
});

describe('one-time message', () => {
  it('opens only with the session token it was sealed for, and the sealed text does not contain the message', () => {
    const token = newSessionToken();
    const sealed = sealFlash(token, 'msr_test_secret');
    expect(sealed).not.toContain('msr_test_secret');
    expect(openFlash(token, sealed)).toBe('msr_test_secret');
    expect(openFlash(newSessionToken(), sealed)).toBeUndefined();
    expect(
      openFlash(
        token,
        sealed.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')),
      ),
    ).toBeUndefined();
    expect(openFlash(token, 'garbage')).toBeUndefined();
  });
});
