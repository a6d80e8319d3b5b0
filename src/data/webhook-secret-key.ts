import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config';
import { ApiError } from '../domain/errors';
import { parseSecretBoxKey, secretBox, SECRET_BOX_KEY_BYTES, type SecretBox } from '../domain/secret-box';
import { randomBytes } from 'node:crypto';

/** The development key file, in DATA_DIR. */
export const WEBHOOK_KEY_FILE = 'webhook-secret.key';

/**
 * The box that seals webhook signing secrets, opened on first use: WEBHOOK_SECRET_KEY when set; in
 * production nothing else (an error saying so); in development a key file in DATA_DIR, created
 * with mode 0600 the first time (exclusively, so a server and the CLI starting together agree on
 * one key). The key is never logged.
 */
export function webhookSecretBox(config: Pick<Config, 'webhookSecretKey' | 'apiEnv' | 'dataDir'>): () => SecretBox {
  let box: SecretBox | undefined;
  return () => (box ??= secretBox(loadKey(config)));
}

function loadKey({ webhookSecretKey, apiEnv, dataDir }: Pick<Config, 'webhookSecretKey' | 'apiEnv' | 'dataDir'>): Buffer {
  if (webhookSecretKey) return webhookSecretKey;
  if (apiEnv === 'production') {
    throw new ApiError(
      'SERVICE_UNAVAILABLE',
      'Webhook secrets cannot be sealed: WEBHOOK_SECRET_KEY is not configured (required with API_ENV=production).',
    );
  }
  const file = path.join(dataDir, WEBHOOK_KEY_FILE);
  fs.mkdirSync(dataDir, { recursive: true });
  if (!fs.existsSync(file)) {
    // Written whole under another name, then linked into place: a reader never sees a partial key,
    // and of two processes creating it at once, the first link wins and both read that one.
    const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    fs.writeFileSync(draft, `${randomBytes(SECRET_BOX_KEY_BYTES).toString('base64')}\n`, { flag: 'wx', mode: 0o600 });
    try {
      fs.linkSync(draft, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      fs.rmSync(draft, { force: true });
    }
  }
  const key = parseSecretBoxKey(fs.readFileSync(file, 'utf8'));
  if (!key) throw new Error(`${file} does not hold a 32-byte key (base64 or hex)`);
  return key;
}
