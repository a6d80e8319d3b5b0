import type Provider from 'oidc-provider';
import type { OAuthConfig } from '../../config';
import type { Account, AccountStore } from '../account-store';
import { invalidKey, type Principal } from '../auth';
import { recordIdHash } from './oauth-adapter';
import { MCP_SCOPE, mcpResource } from './oauth-provider';

/** An agent the account connected (a grant), as its page lists it. */
export interface ConnectedAgent {
  /** The SHA-256 of the grant's id: what the page's revoke form names (never a token). */
  id: string;
  /** The client's id (its metadata document's URL) and the name its document gives. */
  clientId: string;
  name: string;
  /** What it may do: the resource and scope of its tokens. */
  resource: string;
  scope: string;
  /** When the grant was given, and when it lapses unless used (ISO 8601). */
  createdAt: string;
  expiresAt: string | null;
}

/** The agents' side of the OAuth server: their tokens on /mcp, the account page's list and revocation. */
export interface AgentAuthorization {
  readonly config: OAuthConfig;
  /** The protected resource its tokens are for (`<issuer>/mcp`). */
  readonly resource: string;
  /** The URL of the resource's RFC 9728 metadata, which a 401 on /mcp names. */
  readonly resourceMetadataUrl: string;
  /** The authorization server (oidc-provider loaded and built on first use). */
  provider(): Promise<Provider>;
  /** The principal of an access token presented to /mcp; UNAUTHORIZED (invalid_token) for one unknown, expired, revoked or for another resource. */
  authenticate(token: string): Promise<Principal>;
  /** The account's connected agents, newest first. */
  connected(account: Account): Promise<ConnectedAgent[]>;
  /** Revokes one of the account's agents: its grant and every token of it, at once (the next request on any instance reads the store). */
  revoke(account: Account, id: string): Promise<void>;
  /** The name a client's metadata document gives (its client_id when it gives none). */
  clientName(clientId: string): Promise<string>;
}

/** The ids of principals of agent tokens: one per grant (its rate-limit bucket), never a key's id. */
export const AGENT_ID_PREFIX = 'agent_';

export function createAgentAuthorization(
  config: OAuthConfig,
  store: AccountStore,
  provider: () => Promise<Provider>,
  clock: () => Date,
): AgentAuthorization {
  const resource = mcpResource(config);
  const clientName = async (clientId: string) => {
    const client = await (await provider()).Client.find(clientId).catch(() => undefined);
    return client?.clientName ?? clientId;
  };
  return {
    config,
    resource,
    resourceMetadataUrl: `${config.issuer}/.well-known/oauth-protected-resource/mcp`,
    provider,
    clientName,
    async authenticate(token) {
      const found = await (await provider()).AccessToken.find(token);
      if (!found) throw invalidKey('The access token is unknown, expired or revoked: sign in again through the agent.');
      const audience = ([] as unknown[]).concat(found.aud ?? []);
      if (!audience.includes(resource) || !found.scopes.has(MCP_SCOPE)) {
        throw invalidKey(`The access token is not for this resource: it is good for ${audience.join(', ') || 'no resource'} only.`);
      }
      const account = found.accountId === undefined ? undefined : await store.findAccountById(found.accountId);
      if (!account) throw invalidKey('The access token belongs to no account.');
      return {
        account,
        keyId: `${AGENT_ID_PREFIX}${recordIdHash(found.grantId ?? token).slice(0, 24)}`,
        expiresAt: new Date((found.exp ?? 0) * 1000).toISOString(),
      };
    },
    async connected(account) {
      const rows = await store.oauth.listGrants(account.id, clock().toISOString());
      const agents = await Promise.all(
        rows.map(async (row) => {
          const payload = JSON.parse(row.payload) as { clientId?: string; iat?: number; resources?: Record<string, string> };
          const clientId = payload.clientId ?? '';
          return {
            id: row.grantHash,
            clientId,
            name: await clientName(clientId),
            resource: Object.keys(payload.resources ?? {}).join(', '),
            scope: Object.values(payload.resources ?? {}).join(' '),
            createdAt: new Date((payload.iat ?? 0) * 1000).toISOString(),
            expiresAt: row.expiresAt,
          } satisfies ConnectedAgent;
        }),
      );
      return agents.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    },
    async revoke(account, id) {
      const mine = await store.oauth.listGrants(account.id, new Date(0).toISOString());
      if (!mine.some((row) => row.grantHash === id)) return;
      await store.oauth.revokeGrant(id);
    },
  };
}
