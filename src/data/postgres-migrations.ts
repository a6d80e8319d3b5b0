import type pg from 'pg';

/**
 * PostgreSQL schema versions: the SQLite schema (migrations.ts, versions 1 to 5 there) written for
 * PostgreSQL as one numbered list (6 is PostgreSQL's own: the outbox's notifications), applied in order and recorded in `schema_migrations`. A migration
 * is never edited once released: add a new one. Timestamps stay ISO 8601 text, as in SQLite, so
 * both databases compare and return them alike.
 */
export const POSTGRES_MIGRATIONS: readonly string[] = [
  // 1: accounts, API keys (only the SHA-256 hash and the last 4 characters), monthly usage, sessions.
  `
  CREATE TABLE accounts (
    id            TEXT PRIMARY KEY,
    email         TEXT UNIQUE,
    plan          TEXT NOT NULL CHECK (plan IN ('free', 'developer', 'business')),
    created_at    TEXT NOT NULL,
    password_hash TEXT CHECK (password_hash IS NULL OR password_hash LIKE '$argon2id$%')
  );

  CREATE TABLE api_keys (
    id           TEXT PRIMARY KEY,
    seq          BIGINT GENERATED ALWAYS AS IDENTITY,
    account_id   TEXT NOT NULL REFERENCES accounts (id),
    env          TEXT NOT NULL CHECK (env IN ('live', 'test')),
    key_hash     TEXT NOT NULL UNIQUE CHECK (length(key_hash) = 64),
    key_tail     TEXT CHECK (key_tail IS NULL OR length(key_tail) = 4),
    created_at   TEXT NOT NULL,
    revoked_at   TEXT,
    replaced_by  TEXT REFERENCES api_keys (id),
    last_used_at TEXT
  );
  CREATE INDEX api_keys_account ON api_keys (account_id);

  CREATE TABLE usage (
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    month       TEXT NOT NULL CHECK (length(month) = 7),
    used        BIGINT NOT NULL DEFAULT 0 CHECK (used >= 0),
    PRIMARY KEY (account_id, month)
  );

  CREATE TABLE sessions (
    token_hash   TEXT PRIMARY KEY CHECK (length(token_hash) = 64),
    account_id   TEXT NOT NULL REFERENCES accounts (id),
    created_at   TEXT NOT NULL,
    last_seen_at TEXT NOT NULL,
    flash        TEXT
  );
  CREATE INDEX sessions_account ON sessions (account_id);
  `,
  // 2: a revision of everything an authenticated key depends on (its revocation, its account's
  // plan), bumped by triggers in the writing transaction: servers cache keys and read this one row
  // per event-loop turn, so a change committed by any process (the CLI, another instance) is seen by
  // the next request everywhere. Usage columns do not bump it.
  `
  CREATE TABLE revisions (
    name   TEXT PRIMARY KEY,
    value  BIGINT NOT NULL
  );
  INSERT INTO revisions (name, value) VALUES ('keys', 0);

  CREATE FUNCTION bump_keys_revision() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    UPDATE revisions SET value = value + 1 WHERE name = 'keys';
    RETURN NULL;
  END
  $$;
  CREATE TRIGGER api_keys_revision_update AFTER UPDATE OF key_hash, account_id, env, revoked_at, replaced_by ON api_keys
    FOR EACH ROW EXECUTE FUNCTION bump_keys_revision();
  CREATE TRIGGER api_keys_revision_delete AFTER DELETE ON api_keys
    FOR EACH ROW EXECUTE FUNCTION bump_keys_revision();
  CREATE TRIGGER accounts_revision_update AFTER UPDATE OF id, plan ON accounts
    FOR EACH ROW EXECUTE FUNCTION bump_keys_revision();
  CREATE TRIGGER accounts_revision_delete AFTER DELETE ON accounts
    FOR EACH ROW EXECUTE FUNCTION bump_keys_revision();
  `,
  // 3: the ECB rates history (src/data/rates/pg-keyv-store.ts: one row per publication date and the
  // meta keys, in keyv's layout). The rates service also creates it if missing, so a process that
  // serves rates before this migration ran still works; IF NOT EXISTS makes the two orders agree.
  `
  CREATE TABLE IF NOT EXISTS rates_keyv (key text PRIMARY KEY, value text NOT NULL);
  `,
  // 4: as SQLite's 4: a key's end (which moves the keys revision) and usage per account per UTC day.
  `
  ALTER TABLE api_keys ADD COLUMN expires_at TEXT;
  DROP TRIGGER api_keys_revision_update ON api_keys;
  CREATE TRIGGER api_keys_revision_update AFTER UPDATE OF key_hash, account_id, env, revoked_at, replaced_by, expires_at ON api_keys
    FOR EACH ROW EXECUTE FUNCTION bump_keys_revision();

  CREATE TABLE usage_days (
    account_id    TEXT NOT NULL REFERENCES accounts (id),
    day           TEXT NOT NULL CHECK (length(day) = 10),
    delivered     BIGINT NOT NULL DEFAULT 0 CHECK (delivered >= 0),
    refused_quota BIGINT NOT NULL DEFAULT 0 CHECK (refused_quota >= 0),
    refused_rate  BIGINT NOT NULL DEFAULT 0 CHECK (refused_rate >= 0),
    PRIMARY KEY (account_id, day)
  );
  `,
  // 5: as SQLite's 5: webhook endpoints (secrets sealed), events once by identity, the deliveries'
  // outbox, and the index of keys near their end.
  `
  CREATE TABLE webhook_endpoints (
    id          TEXT PRIMARY KEY,
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    url         TEXT NOT NULL,
    secret      TEXT NOT NULL CHECK (secret LIKE 'v1:%'),
    created_at  TEXT NOT NULL
  );
  CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id);

  CREATE TABLE webhook_events (
    id          TEXT PRIMARY KEY,
    identity    TEXT NOT NULL UNIQUE,
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    type        TEXT NOT NULL CHECK (type IN ('quota.threshold', 'key.expiring', 'key.expired')),
    data        TEXT NOT NULL,
    created_at  TEXT NOT NULL
  );

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
  );
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
  CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id);

  CREATE INDEX api_keys_ending ON api_keys (expires_at) WHERE revoked_at IS NULL AND expires_at IS NOT NULL;
  `,
  // 6 (PostgreSQL only): every insert into the outbox notifies the channel webhook_outbox at its
  // commit (once per statement; notifications of one transaction on one channel are folded into
  // one), whichever process or function wrote it, so each instance's dispatcher wakes at once
  // instead of polling (src/data/outbox-wakeups.ts). A rolled-back insert notifies nobody.
  `
  CREATE FUNCTION webhook_outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM pg_notify('webhook_outbox', '');
    RETURN NULL;
  END
  $$;
  CREATE TRIGGER webhook_deliveries_notify AFTER INSERT ON webhook_deliveries
    FOR EACH STATEMENT EXECUTE FUNCTION webhook_outbox_notify();
  `,
  // 7: OAuth 2.1 for agents (src/services/oauth): every artefact of the authorization server (codes,
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
  );
  CREATE INDEX oauth_records_grant ON oauth_records (grant_hash) WHERE grant_hash IS NOT NULL;
  CREATE INDEX oauth_records_uid ON oauth_records (uid_hash) WHERE uid_hash IS NOT NULL;
  CREATE INDEX oauth_records_account ON oauth_records (account_id) WHERE account_id IS NOT NULL;
  CREATE INDEX oauth_records_expiry ON oauth_records (expires_at) WHERE expires_at IS NOT NULL;
  `,
];

/** The advisory lock every migrating process takes: one key for this application's schema. */
const MIGRATION_LOCK = 7_301_954_010;

export interface MigrationReport {
  /** The versions this call applied (empty when the database was up to date). */
  applied: number[];
  /** The schema version after the call. */
  version: number;
}

/**
 * Brings the database to the latest version in one transaction under pg_advisory_xact_lock: several
 * instances (and the CLI) starting at once wait for each other, and the second finds nothing to do.
 * A failing migration rolls back entirely.
 */
export async function migratePostgres(pool: pg.Pool): Promise<MigrationReport> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await client.query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
      );
      const { rows } = await client.query<{ version: number | null }>('SELECT max(version) AS version FROM schema_migrations');
      const current = rows[0]?.version ?? 0;
      if (current > POSTGRES_MIGRATIONS.length) {
        throw new Error(
          `The database schema (version ${current}) is newer than this program (version ${POSTGRES_MIGRATIONS.length}); upgrade the program.`,
        );
      }
      const applied: number[] = [];
      for (let version = current + 1; version <= POSTGRES_MIGRATIONS.length; version++) {
        await client.query(POSTGRES_MIGRATIONS[version - 1]!);
        await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version]);
        applied.push(version);
      }
      await client.query('COMMIT');
      return { applied, version: POSTGRES_MIGRATIONS.length };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } finally {
    client.release();
  }
}
