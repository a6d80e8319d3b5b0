import type { Database } from 'better-sqlite3';

/**
 * SQLite schema versions, applied in order and recorded in `PRAGMA user_version`. A migration is
 * never edited once released: add a new one. The CHECK lists are written out rather than built from
 * PLANS so that the text of a released migration never changes under it.
 */
export const SQLITE_MIGRATIONS: readonly string[] = [
  // 1: accounts, API keys (only the SHA-256 hash is kept) and monthly usage counters.
  `
  CREATE TABLE accounts (
    id          TEXT PRIMARY KEY,
    email       TEXT UNIQUE,
    plan        TEXT NOT NULL CHECK (plan IN ('free', 'developer', 'business')),
    created_at  TEXT NOT NULL
  ) STRICT;

  CREATE TABLE api_keys (
    id          TEXT PRIMARY KEY,
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    env         TEXT NOT NULL CHECK (env IN ('live', 'test')),
    key_hash    TEXT NOT NULL UNIQUE CHECK (length(key_hash) = 64),
    created_at  TEXT NOT NULL,
    revoked_at  TEXT,
    replaced_by TEXT REFERENCES api_keys (id)
  ) STRICT;
  CREATE INDEX api_keys_account ON api_keys (account_id);

  CREATE TABLE usage (
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    month       TEXT NOT NULL CHECK (length(month) = 7),
    used        INTEGER NOT NULL DEFAULT 0 CHECK (used >= 0),
    PRIMARY KEY (account_id, month)
  ) STRICT, WITHOUT ROWID;
  `,
  // 2: the account page. Passwords as Argon2id PHC strings; sessions by the SHA-256 of their token,
  // with an optional one-time message (a new key, encrypted with a key derived from the session
  // token, which is stored nowhere); the key's last characters and a coarse last-use time.
  `
  ALTER TABLE accounts ADD COLUMN password_hash TEXT CHECK (password_hash IS NULL OR password_hash LIKE '$argon2id$%');
  ALTER TABLE api_keys ADD COLUMN key_tail TEXT CHECK (key_tail IS NULL OR length(key_tail) = 4);
  ALTER TABLE api_keys ADD COLUMN last_used_at TEXT;

  CREATE TABLE sessions (
    token_hash   TEXT PRIMARY KEY CHECK (length(token_hash) = 64),
    account_id   TEXT NOT NULL REFERENCES accounts (id),
    created_at   TEXT NOT NULL,
    last_seen_at TEXT NOT NULL,
    flash        TEXT
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX sessions_account ON sessions (account_id);
  `,
  // 3: a revision of everything an authenticated key depends on (its revocation, its account's plan).
  // Servers cache keys and read this one row per event-loop turn: a change from any process (the
  // CLI, another server) is seen by the next request. Usage columns do not bump it.
  `
  CREATE TABLE revisions (
    name   TEXT PRIMARY KEY,
    value  INTEGER NOT NULL
  ) STRICT;
  INSERT INTO revisions (name, value) VALUES ('keys', 0);

  CREATE TRIGGER api_keys_revision_update AFTER UPDATE OF key_hash, account_id, env, revoked_at, replaced_by ON api_keys
  BEGIN UPDATE revisions SET value = value + 1 WHERE name = 'keys'; END;
  CREATE TRIGGER api_keys_revision_delete AFTER DELETE ON api_keys
  BEGIN UPDATE revisions SET value = value + 1 WHERE name = 'keys'; END;
  CREATE TRIGGER accounts_revision_update AFTER UPDATE OF id, plan ON accounts
  BEGIN UPDATE revisions SET value = value + 1 WHERE name = 'keys'; END;
  CREATE TRIGGER accounts_revision_delete AFTER DELETE ON accounts
  BEGIN UPDATE revisions SET value = value + 1 WHERE name = 'keys'; END;
  `,
  // 4: a key's end (its own expiry, or the end of its grace once rotated: the earlier of the two),
  // which also moves the keys revision; and usage per account per UTC day: conversions delivered
  // (written with the month's usage, in the same transaction) and requests refused for the quota
  // or the rate limit.
  `
  ALTER TABLE api_keys ADD COLUMN expires_at TEXT;
  DROP TRIGGER api_keys_revision_update;
  CREATE TRIGGER api_keys_revision_update AFTER UPDATE OF key_hash, account_id, env, revoked_at, replaced_by, expires_at ON api_keys
  BEGIN UPDATE revisions SET value = value + 1 WHERE name = 'keys'; END;

  CREATE TABLE usage_days (
    account_id    TEXT NOT NULL REFERENCES accounts (id),
    day           TEXT NOT NULL CHECK (length(day) = 10),
    delivered     INTEGER NOT NULL DEFAULT 0 CHECK (delivered >= 0),
    refused_quota INTEGER NOT NULL DEFAULT 0 CHECK (refused_quota >= 0),
    refused_rate  INTEGER NOT NULL DEFAULT 0 CHECK (refused_rate >= 0),
    PRIMARY KEY (account_id, day)
  ) STRICT, WITHOUT ROWID;
  `,
  // 5: webhooks. Endpoints with their signing secret sealed (AES-256-GCM, secret-box.ts); events
  // with a unique identity (each happens once, whichever instance writes it first) and their data;
  // one delivery row per event and endpoint, the durable outbox the dispatcher claims due rows from.
  // Keys near their end are found by a partial index for the expiry scan.
  `
  CREATE TABLE webhook_endpoints (
    id          TEXT PRIMARY KEY,
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    url         TEXT NOT NULL,
    secret      TEXT NOT NULL CHECK (secret LIKE 'v1:%'),
    created_at  TEXT NOT NULL
  ) STRICT;
  CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id);

  CREATE TABLE webhook_events (
    id          TEXT PRIMARY KEY,
    identity    TEXT NOT NULL UNIQUE,
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    type        TEXT NOT NULL CHECK (type IN ('quota.threshold', 'key.expiring', 'key.expired')),
    data        TEXT NOT NULL,
    created_at  TEXT NOT NULL
  ) STRICT;

  CREATE TABLE webhook_deliveries (
    event_id        TEXT NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
    endpoint_id     TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    status          TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT NOT NULL,
    last_attempt_at TEXT,
    last_status     INTEGER,
    last_error      TEXT,
    delivered_at    TEXT,
    PRIMARY KEY (event_id, endpoint_id)
  ) STRICT;
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
  CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id);

  CREATE INDEX api_keys_ending ON api_keys (expires_at) WHERE revoked_at IS NULL AND expires_at IS NOT NULL;
  `,
  // OAuth 2.1 for agents (src/services/oauth): every artefact of the authorization server (codes,
  // access and refresh tokens, grants, interactions, its sessions) is one row, found by the SHA-256
  // of its id, never by the id itself: a token is not kept in plaintext. A grant's tokens carry the
  // hash of its id, so revoking a grant removes them in one statement; grant rows carry the account.
  `
  CREATE TABLE oauth_records (
    model       TEXT NOT NULL,
    id_hash     TEXT NOT NULL CHECK (length(id_hash) = 64),
    payload     TEXT NOT NULL,
    grant_hash  TEXT,
    uid_hash    TEXT,
    account_id  TEXT REFERENCES accounts (id) ON DELETE CASCADE,
    expires_at  TEXT,
    PRIMARY KEY (model, id_hash)
  ) STRICT;
  CREATE INDEX oauth_records_grant ON oauth_records (grant_hash) WHERE grant_hash IS NOT NULL;
  CREATE INDEX oauth_records_uid ON oauth_records (uid_hash) WHERE uid_hash IS NOT NULL;
  CREATE INDEX oauth_records_account ON oauth_records (account_id) WHERE account_id IS NOT NULL;
  CREATE INDEX oauth_records_expiry ON oauth_records (expires_at) WHERE expires_at IS NOT NULL;
  `,
];

/**
 * Brings the database to the latest version. BEGIN IMMEDIATE takes the write lock before reading
 * user_version, so a CLI and a server starting together never apply the same migration twice.
 */
export function migrate(db: Database): void {
  const apply = db.transaction(() => {
    const current = db.pragma('user_version', { simple: true }) as number;
    if (current > SQLITE_MIGRATIONS.length) {
      throw new Error(
        `The database schema (version ${current}) is newer than this program (version ${SQLITE_MIGRATIONS.length}); upgrade the program.`,
      );
    }
    for (let version = current; version < SQLITE_MIGRATIONS.length; version++) {
      db.exec(SQLITE_MIGRATIONS[version]!);
      db.pragma(`user_version = ${version + 1}`);
    }
  });
  apply.immediate();
}
