import type Provider from 'oidc-provider';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type { OAuthConfig } from '../../config';
import type { OAuthRecordStore } from './oauth-records';
import { oauthAdapter } from './oauth-adapter';

/** The one scope a token carries: the MCP tools of the account that consented (read-only, charged to its quota). */
export const MCP_SCOPE = 'mcp';

/** Where the authorization server's endpoints live, under the issuer (routes.ts lists them). */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
  end_session: '/oauth/session/end',
} as const;

/** The account page's consent step for one interaction. */
export const consentPath = (uid: string): string => `/account/oauth/${uid}`;

/** How long a code, a consent step and the provider's own sign-in session last (seconds). */
const CODE_SECONDS = 60;
const INTERACTION_SECONDS = 10 * 60;
const SESSION_SECONDS = 60 * 60;
/** A client's metadata document is at most this large (bytes), and read within this long (oidc-provider's fetch timeout). */
export const CLIENT_DOCUMENT_MAX_BYTES = 5 * 1024;

export interface OAuthProviderOptions {
  config: OAuthConfig;
  records: OAuthRecordStore;
  clock: () => Date;
  /** Signing keys of the provider's cookies, the same on every instance (derived from WEBHOOK_SECRET_KEY). */
  cookieKeys: string[];
  /** The private JWK that signs what the provider signs (ID tokens), the same on every instance. */
  signingKey: Record<string, string>;
  /** How a Client ID Metadata Document is fetched (client-documents.ts: the webhook URL rules, bounded in size and time). */
  fetchClientDocument: (url: string | URL, init: RequestInit) => Promise<Response>;
  /** Whether X-Forwarded-Proto may be believed (TRUST_PROXY set). */
  behindProxy: boolean;
}

/** The protected resource its tokens are for: /mcp on the issuer. */
export function mcpResource(config: OAuthConfig): string {
  return `${config.issuer}/mcp`;
}

/**
 * The OAuth 2.1 authorization server of agents, oidc-provider (panva/node-oidc-provider, OpenID
 * certified) configured for one resource: the authorization code grant with PKCE (S256, the only
 * method it implements, required of every client), public clients identified by Client ID Metadata
 * Documents only (no registration, no static clients), every token bound by resource indicators
 * (RFC 8707) to `/mcp` and to the `mcp` scope, opaque access tokens that live
 * OAUTH_ACCESS_TOKEN_TTL_SECONDS, refresh tokens replaced on each use (a replayed one revokes its
 * grant), RFC 8414 metadata. Consent is the account page's (consentPath), signed in with its session.
 */
export async function createOAuthProvider(options: OAuthProviderOptions): Promise<Provider> {
  // Loaded here, so a server without OAUTH_ISSUER never loads the library (nor prints its notices).
  const { default: Provider, errors } = await import('oidc-provider');
  const { config } = options;
  const resource = mcpResource(config);
  const configuration: Configuration = {
    adapter: oauthAdapter(options.records, options.clock) as unknown as Configuration['adapter'],
    clients: [],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'EdDSA',
    },
    responseTypes: ['code'],
    // `mcp` is the resource's scope (getResourceServerInfo), not an OpenID one: it is granted per resource.
    scopes: ['offline_access'],
    claims: { openid: ['sub'] },
    pkce: { required: () => true },
    routes: OAUTH_ROUTES,
    cookies: { keys: options.cookieKeys },
    jwks: { keys: [options.signingKey] } as Configuration['jwks'],
    enabledJWA: { idTokenSigningAlgValues: ['EdDSA'] } as Configuration['enabledJWA'],
    features: {
      devInteractions: { enabled: false },
      revocation: { enabled: true },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02' },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: KoaContextWithOIDC, indicator: string) => {
          if (indicator !== resource) throw new errors.InvalidTarget(`tokens of this server are only for ${resource}`);
          return { scope: MCP_SCOPE, audience: resource, accessTokenTTL: config.accessTokenSeconds, accessTokenFormat: 'opaque' };
        },
      },
    } as Configuration['features'],
    ttl: {
      AccessToken: config.accessTokenSeconds,
      AuthorizationCode: CODE_SECONDS,
      RefreshToken: config.refreshTokenSeconds,
      Grant: config.refreshTokenSeconds,
      Interaction: INTERACTION_SECONDS,
      Session: SESSION_SECONDS,
    },
    rotateRefreshToken: true,
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: async () => false,
    interactions: { url: (_ctx, interaction) => consentPath(interaction.uid) },
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    fetch: options.fetchClientDocument as Configuration['fetch'],
    fetchResponseBodyLimits: { 'client_id metadata document': CLIENT_DOCUMENT_MAX_BYTES } as Configuration['fetchResponseBodyLimits'],
    renderError: async (ctx, out) => {
      ctx.type = 'html';
      ctx.body = errorPage(String(out['error'] ?? 'server_error'), String(out['error_description'] ?? ''));
    },
  };
  const provider = new Provider(config.issuer, configuration);
  provider.proxy = options.behindProxy;
  return provider;
}

/** The page of an authorization request that cannot be sent back to its client (no usable redirect_uri, unknown client). */
function errorPage(error: string, description: string): string {
  const text = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorization refused</title></head><body><main><h1>Authorization refused</h1><p><code>${text(error)}</code>: ${text(description)}</p><p>The agent that sent you here asked for something this server does not grant; nothing was granted.</p></main></body></html>`;
}
