/** One artefact of the authorization server as it is stored: found by the SHA-256 of its id, never by the id. */
export interface OAuthRecordRow {
  /** The oidc-provider model: AccessToken, RefreshToken, AuthorizationCode, Grant, Interaction, Session, … */
  model: string;
  idHash: string;
  /** The artefact's JSON, without its id (the id is what a bearer presents). */
  payload: string;
  /** The SHA-256 of the grant the artefact belongs to: revoking the grant removes it. */
  grantHash: string | null;
  /** The SHA-256 of a session's uid (the provider finds sessions by it). */
  uidHash: string | null;
  /** The account a grant was given by (grant rows): what the account page lists. */
  accountId: string | null;
  /** When it stops being found; null: never. */
  expiresAt: string | null;
}

/** A grant the account gave an agent, as the account page lists it. */
export interface AgentGrantRow {
  grantHash: string;
  payload: string;
  expiresAt: string | null;
}

/** The authorization server's storage (oauth-adapter.ts), on the project's database. */
export interface OAuthRecordStore {
  upsert(row: OAuthRecordRow): Promise<void>;
  /** The payload of an artefact not past `expiresAt` at `now`. */
  find(model: string, idHash: string, now: string): Promise<string | undefined>;
  findByUid(model: string, uidHash: string, now: string): Promise<string | undefined>;
  destroy(model: string, idHash: string): Promise<void>;
  /** Removes every artefact of the grant and the grant itself; how many rows went. */
  revokeGrant(grantHash: string): Promise<number>;
  /** The account's grants not past their end, newest first. */
  listGrants(accountId: string, now: string): Promise<AgentGrantRow[]>;
  /** Removes artefacts past their end; how many went. */
  deleteExpired(now: string): Promise<number>;
}
