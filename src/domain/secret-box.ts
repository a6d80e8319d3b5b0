import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Secrets that must be read back in clear (a webhook's signing secret is needed to sign), so they
 * are encrypted at rest rather than hashed: AES-256-GCM under a 32-byte key, a fresh 12-byte nonce
 * each time, and `context` (the row's id) as associated data, so a sealed value copied onto another
 * row does not open. Sealed form: `v1:` and the base64 of nonce, tag and ciphertext.
 */
export interface SecretBox {
  seal(plaintext: string, context: string): string;
  open(sealed: string, context: string): string;
  /**
   * A 32-byte key for another purpose, derived from the box's key with HKDF-SHA256 under `label`
   * (distinct labels give independent keys): operators configure one secret, and every instance
   * configured with it derives the same key.
   */
  derive(label: string): Buffer;
}

const VERSION = 'v1:';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
export const SECRET_BOX_KEY_BYTES = 32;

export function secretBox(key: Buffer): SecretBox {
  if (key.length !== SECRET_BOX_KEY_BYTES) throw new TypeError(`a secret box key is ${SECRET_BOX_KEY_BYTES} bytes, got ${key.length}`);
  return {
    seal(plaintext, context) {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return VERSION + Buffer.concat([nonce, cipher.getAuthTag(), ciphertext]).toString('base64');
    },
    open(sealed, context) {
      if (!sealed.startsWith(VERSION)) throw new Error('unknown sealed-secret format');
      const raw = Buffer.from(sealed.slice(VERSION.length), 'base64');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, NONCE_BYTES));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(raw.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
      // A wrong key or a tampered value fails here ("Unsupported state or unable to authenticate data").
      return Buffer.concat([decipher.update(raw.subarray(NONCE_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    },
    derive(label) {
      return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `measurement-api ${label}`, SECRET_BOX_KEY_BYTES));
    },
  };
}

/** A key as configured: 64 hex digits or the base64 of 32 bytes; undefined when it is neither. */
export function parseSecretBoxKey(text: string): Buffer | undefined {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (/^[A-Za-z0-9+/_-]{42,44}={0,2}$/.test(trimmed)) {
    const bytes = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (bytes.length === SECRET_BOX_KEY_BYTES) return bytes;
  }
  return undefined;
}
