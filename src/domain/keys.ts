import { hash, randomBytes as cryptoRandomBytes, randomInt } from 'node:crypto';
import { crc32 } from './crc32';

/**
 * API keys (contract section 6): `msr_live_` or `msr_test_`, 43 base62 characters holding 32
 * CSPRNG bytes, then a 6-character base62 CRC-32 of everything before it. The checksum lets us
 * refuse typos and truncated pastes without a database query; it proves nothing about authenticity.
 */
export type KeyEnv = 'live' | 'test';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const PREFIX_LENGTH = 'msr_live_'.length;
const BODY_LENGTH = 43; // 62^43 > 2^256 > 62^42
const CHECKSUM_LENGTH = 6; // 62^6 > 2^32
const KEY_LENGTH = PREFIX_LENGTH + BODY_LENGTH + CHECKSUM_LENGTH;
const KEY_BYTES = 32;
const MAX_BODY = 1n << 256n;

/** Base62 digit of each ASCII code, -1 for anything else. */
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGIT[ALPHABET.charCodeAt(i)] = i;

/** Production servers accept only live keys; every other environment only test keys. */
export function keyEnvFor(apiEnv: 'development' | 'production'): KeyEnv {
  return apiEnv === 'production' ? 'live' : 'test';
}

export function generateApiKey(env: KeyEnv, randomBytes: (n: number) => Uint8Array = cryptoRandomBytes): string {
  const bytes = randomBytes(KEY_BYTES);
  if (bytes.length !== KEY_BYTES) throw new TypeError(`randomBytes(${KEY_BYTES}) returned ${bytes.length} bytes`);
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  const head = `msr_${env}_${toBase62(value, BODY_LENGTH)}`;
  return head + toBase62(BigInt(crc32(head)), CHECKSUM_LENGTH);
}

/**
 * Checks length, prefix, alphabet, that the body fits in 32 bytes, and the checksum. No regex and
 * no early exit inside the loops: every token of the right length costs the same fixed work.
 */
export function parseApiKey(token: string): { env: KeyEnv } | undefined {
  if (typeof token !== 'string' || token.length !== KEY_LENGTH) return undefined;
  const prefix = token.slice(0, PREFIX_LENGTH);
  const env: KeyEnv | undefined = prefix === 'msr_live_' ? 'live' : prefix === 'msr_test_' ? 'test' : undefined;
  let valid = env !== undefined;
  let value = 0n;
  for (let i = PREFIX_LENGTH; i < KEY_LENGTH; i++) {
    const code = token.charCodeAt(i);
    const digit = code < 128 ? DIGIT[code]! : -1;
    if (digit < 0) valid = false;
    if (i < PREFIX_LENGTH + BODY_LENGTH) value = value * 62n + BigInt(digit < 0 ? 0 : digit);
  }
  if (value >= MAX_BODY) valid = false;
  const head = token.slice(0, PREFIX_LENGTH + BODY_LENGTH);
  if (toBase62(BigInt(crc32(head)), CHECKSUM_LENGTH) !== token.slice(PREFIX_LENGTH + BODY_LENGTH)) valid = false;
  return valid && env !== undefined ? { env } : undefined;
}

/** The only form in which a key is stored or looked up. */
export function hashApiKey(key: string): string {
  // crypto.hash: the one-shot digest (Node 20.12+), without a Hash object per call.
  return hash('sha256', key, 'hex');
}

/** Opaque record id such as `key_3kTMd9Qx0bLr7aZp`: 16 base62 characters, about 95 random bits. */
export function newId(prefix: 'acc' | 'key'): string {
  let id = `${prefix}_`;
  for (let i = 0; i < 16; i++) id += ALPHABET[randomInt(ALPHABET.length)];
  return id;
}

/** Big-endian base62 of `value`, left-padded with '0' to `width` (value must fit). */
export function toBase62(value: bigint, width: number): string {
  let out = '';
  for (let i = 0; i < width; i++) {
    out = ALPHABET[Number(value % 62n)] + out;
    value /= 62n;
  }
  if (value !== 0n) throw new RangeError(`value does not fit in ${width} base62 digits`);
  return out;
}
