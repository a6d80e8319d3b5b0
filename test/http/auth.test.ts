import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/data/sqlite-store';
import type { Account, AccountStore } from '../../src/services/account-store';
import { ApiError } from '../../src/domain/errors';
import { generateApiKey } from '../../src/domain/keys';
import { authenticate, unconfirmedPrincipal } from '../../src/services/auth';
import { createKeyCache } from '../../src/services/key-cache';
import { errorHeaders } from '../../src/http/answer/error-headers';

const MISSING = 'Bearer realm="measurement-api"';
const INVALID = 'Bearer realm="measurement-api", error="invalid_token"';

let dir: string;
let store: AccountStore;
let account: Account;
let testKey: string;
let testKeyId: string;
let liveKey: string;
let revokedKey: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'auth-'));
  store = openSqliteStore(path.join(dir, 'measurement.db'));
  account = await store.createAccount({ email: 'dev@example.com', plan: 'developer' });
  ({
    key: testKey,
    record: { id: testKeyId },
  } = await store.createKey(account.id, 'test'));
  ({ key: liveKey } = await store.createKey(account.id, 'live'));
  const revoked = await store.createKey(account.id, 'test');
  revokedKey = revoked.key;
  await store.revokeKey(revoked.record.id);
});
afterAll(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The ApiError authenticate rejects with (fails the test when it resolves). */
async function refusal(header: string | null | undefined, apiEnv: 'development' | 'production' = 'development'): Promise<ApiError> {
  const error = await authenticate(header, store, apiEnv).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('authenticate', () => {
  it('accepts a valid key of this environment and returns its account and key id', async () => {
    expect(await authenticate(`Bearer ${testKey}`, store, 'development')).toEqual({ account, keyId: testKeyId, expiresAt: null });
    expect((await authenticate(`Bearer ${liveKey}`, store, 'production')).account).toEqual(account);
  });

  it.each(['bearer', 'BEARER', 'BeArEr'])('accepts the scheme written %s', async (scheme) => {
    expect((await authenticate(`${scheme} ${testKey}`, store, 'development')).keyId).toBe(testKeyId);
  });

  it.each([undefined, null, '', '   '])('a missing header (%j) asks for a key without error="invalid_token"', async (header) => {
    const error = await refusal(header);
    expect(error).toMatchObject({
      code: 'UNAUTHORIZED',
      status: 401,
      message: 'An API key is required: send Authorization: Bearer <key>.',
    });
    expect(errorHeaders(error)).toEqual({ 'WWW-Authenticate': MISSING });
  });

  it.each([
    ['another scheme', () => `Basic ${Buffer.from(`${testKey}:`).toString('base64')}`, /Bearer <key>/],
    ['the scheme alone', () => 'Bearer', /Bearer <key>/],
    ['two tokens', () => `Bearer ${testKey} ${testKey}`, /Bearer <key>/],
    ['a key without scheme', () => testKey, /Bearer <key>/],
    ['a malformed key', () => 'Bearer msr_test_abc', /malformed/],
    ['a bad checksum', () => `Bearer ${testKey.slice(0, -1)}${testKey.endsWith('0') ? '1' : '0'}`, /malformed/],
    ['a huge header', () => `Bearer ${'a'.repeat(100_000)}`, /Bearer <key>/],
    ['a live key on a development server', () => `Bearer ${liveKey}`, /not valid for this environment/],
    ['an unknown key', () => `Bearer ${generateApiKey('test')}`, /unknown or has been revoked/],
    ['a revoked key', () => `Bearer ${revokedKey}`, /unknown or has been revoked/],
  ])('refuses %s as an invalid token, without echoing it', async (_, header, message) => {
    const sent = header();
    const error = await refusal(sent);
    expect(error).toMatchObject({ code: 'UNAUTHORIZED', status: 401, message: expect.stringMatching(message) });
    expect(errorHeaders(error)).toEqual({ 'WWW-Authenticate': INVALID });
    const token = sent.split(' ').at(-1)!;
    if (token.length > 8) expect(error.message).not.toContain(token);
    expect(error.message).not.toMatch(/msr_(live|test)_[0-9A-Za-z]/);
  });

  it('refuses a test key on a production server', async () => {
    const error = await refusal(`Bearer ${testKey}`, 'production');
    expect(error.message).toBe(
      'The API key is not valid for this environment: this server accepts only msr_live_ keys (API_ENV=production); the key sent is a msr_test_ key.',
    );
    expect(errorHeaders(error)).toEqual({ 'WWW-Authenticate': INVALID });
  });
});

describe('a key with an end', () => {
  const END = '2030-01-01T00:00:00.000Z';
  const before = () => new Date('2029-12-31T23:59:59.999Z');
  const at = () => new Date(END);
  let expiring: string;

  beforeAll(async () => {
    ({ key: expiring } = await store.createKey(account.id, 'test', END));
  });

  it('answers with its end until then, and KEY_EXPIRED saying when from then on, with the invalid_token challenge', async () => {
    expect((await authenticate(`Bearer ${expiring}`, store, 'development', before)).expiresAt).toBe(END);
    const error = await authenticate(`Bearer ${expiring}`, store, 'development', at).then(
      () => undefined,
      (e: unknown) => e as ApiError,
    );
    expect(error).toMatchObject({
      code: 'KEY_EXPIRED',
      status: 401,
      message: `The API key expired at ${END}; use a current key, or ask for a new one.`,
    });
    expect(errorHeaders(error!)).toEqual({ 'WWW-Authenticate': INVALID });
    expect(error!.message).not.toMatch(/invalid|unknown/i);
  });

  it('is refused by the clock through the key cache too: a key cached while it worked is KEY_EXPIRED after its end, revision unchanged', async () => {
    const cache = createKeyCache(store);
    expect((await authenticate(`Bearer ${expiring}`, cache, 'development', before)).expiresAt).toBe(END);
    expect(unconfirmedPrincipal(`Bearer ${expiring}`, cache, 'development', before)?.principal.expiresAt).toBe(END);
    await expect(authenticate(`Bearer ${expiring}`, cache, 'development', at)).rejects.toMatchObject({ code: 'KEY_EXPIRED' });
    expect(unconfirmedPrincipal(`Bearer ${expiring}`, cache, 'development', at)).toBeUndefined();
  });
});
