import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config';
import { ApiError } from '../domain/errors';
import { parseSecretBoxKey, secretBox, SECRET_BOX_KEY_BYTES, type SecretBox } from '../domain/secret-box';
import { randomBytes } from 'node:crypto';

/** The development key file, in DATA_DIR. */
export const WEBHOOK_KEY_FILE = 'webhook-secret.key';

type KeyConfig = Pick<Config, 'webhookSecretKey' | 'apiEnv' | 'dataDir' | 'database'>;

/** Who opens the box: a server makes a missing key file; the CLI (`cli`) only where every process on its database reads that file. */
export type KeyUser = 'server' | 'cli';

/**
 * The box that seals webhook signing secrets, opened on first use: WEBHOOK_SECRET_KEY when set; in
 * production nothing else (an error saying so); in development a key file in DATA_DIR, created
 * with mode 0600 the first time (exclusively, so a server and the CLI starting together agree on
 * one key). A server on a database outside DATA_DIR (PostgreSQL, or a SQLite file elsewhere) may
 * share it with servers of other data directories, each with its own key file: there the CLI uses
 * the key file a server made in its DATA_DIR and never makes one, since a secret sealed under a key
 * of its own would open on no server. The key is never logged.
 */
export function webhookSecretBox(config: KeyConfig, user: KeyUser = 'server'): () => SecretBox {
  let box: SecretBox | undefined;
  return () => (box ??= secretBox(loadKey(config, user)));
}

/** Whether the database is the SQLite file of DATA_DIR: whoever opens it opens that directory's key file. */
function databaseInDataDir({ database, dataDir }: Pick<Config, 'database' | 'dataDir'>): boolean {
  if (database.kind !== 'sqlite') return false;
  const relative = path.relative(dataDir, database.file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

function loadKey(config: KeyConfig, user: KeyUser): Buffer {
  const { webhookSecretKey, apiEnv, dataDir } = config;
  if (webhookSecretKey) return webhookSecretKey;
  if (apiEnv === 'production') {
    throw new ApiError(
      'SERVICE_UNAVAILABLE',
      'Webhook secrets cannot be sealed: WEBHOOK_SECRET_KEY is not configured (required with API_ENV=production).',
    );
  }
  const file = path.join(dataDir, WEBHOOK_KEY_FILE);
  if (user === 'cli' && !fs.existsSync(file) && !databaseInDataDir(config)) {
    throw new ApiError(
      'SERVICE_UNAVAILABLE',
      `WEBHOOK_SECRET_KEY is not set, and no server has made its development key in DATA_DIR (${file}): the database is outside DATA_DIR, so the servers on it may each hold another key, and a secret sealed here would open on none of them. ` +
        'Set WEBHOOK_SECRET_KEY to the key the servers use, the same value for every server and the CLI (32 bytes, e.g. openssl rand -base64 32), or run the command with the DATA_DIR of the server.',
    );
  }
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
