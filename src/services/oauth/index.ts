import { createHash, createPrivateKey } from 'node:crypto';
import type Provider from 'oidc-provider';
import type { Config } from '../../config';
import { ApiError } from '../../domain/errors';
import type { SecretBox } from '../../domain/secret-box';
import type { AccountStore } from '../account-store';
import type { Principal } from '../auth';
import { createAgentAuthorization, type AgentAuthorization } from './agents';
import { createOAuthProvider } from './oauth-provider';

/** The resource a request's credential is presented to: only /mcp takes agents' OAuth tokens. */
export type CredentialResource = 'api' | 'mcp';

export interface AgentServiceParts {
  config: Config;
  store: AccountStore;
  clock: () => Date;
  webhookSecrets: () => SecretBox;
  /** How client metadata documents are fetched (data/client-documents.ts); required when OAUTH_ISSUER is set. */
  fetchClientDocument: ((url: string | URL, init: RequestInit) => Promise<Response>) | undefined;
}

/** The agents' OAuth server when OAUTH_ISSUER is set; its provider is built on first use (its cookie keys need WEBHOOK_SECRET_KEY in production). */
export function agentServices({
  config,
  store,
  clock,
  webhookSecrets,
  fetchClientDocument,
}: AgentServiceParts): AgentAuthorization | undefined {
  const oauth = config.oauth;
  if (!oauth) return undefined;
  if (!fetchClientDocument) throw new TypeError('OAUTH_ISSUER is set but no client document fetch was given to the services.');
  let provider: Promise<Provider> | undefined;
  const built = () =>
    (provider ??= createOAuthProvider({
      config: oauth,
      records: store.oauth,
      clock,
      cookieKeys: [webhookSecrets().derive('oauth cookies').toString('base64url')],
      signingKey: signingJwk(webhookSecrets().derive('oauth signing key')),
      fetchClientDocument,
      behindProxy: config.trustProxy !== undefined,
    }));
  return createAgentAuthorization(oauth, store, built, clock);
}

/** PKCS #8 DER of an Ed25519 private key, less its 32-byte seed (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * The authorization server's signing key (ID tokens, its JWKS), an Ed25519 key whose seed is
 * derived from WEBHOOK_SECRET_KEY: the same on every instance, never the library's public
 * development keys, never stored.
 */
export function signingJwk(seed: Buffer): Record<string, string> {
  if (seed.length !== 32) throw new TypeError('an Ed25519 seed is 32 bytes');
  const key = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const jwk = key.export({ format: 'jwk' }) as Record<string, string>;
  return { ...jwk, alg: 'EdDSA', use: 'sig', kid: createHashKid(jwk['x']!) };
}

/** The key's id: the start of the SHA-256 of its public part. */
function createHashKid(x: string): string {
  return createHash('sha256').update(x).digest('base64url').slice(0, 16);
}

/** A Bearer credential that is not an API key (no `msr_` prefix): an agent's access token, where one is taken. */
export function bearerAgentToken(authorization: string | null): string | undefined {
  const match = /^bearer +(\S{1,512})$/i.exec(authorization?.trim() ?? '');
  const token = match?.[1];
  return token !== undefined && !token.startsWith('msr_') ? token : undefined;
}

/**
 * The key authentication, with agents' tokens taken on /mcp: an access token there is checked by
 * the authorization server; anything else is an API key as everywhere. A 401 on /mcp names the
 * resource's metadata in its challenge (RFC 9728), so an agent finds where to sign in.
 */
export function withAgentTokens(
  keys: (authorization: string | null) => Promise<Principal>,
  agents: AgentAuthorization | undefined,
): (authorization: string | null, resource?: CredentialResource) => Promise<Principal> {
  if (!agents) return (authorization) => keys(authorization);
  return async (authorization, resource = 'api') => {
    if (resource !== 'mcp') return keys(authorization);
    const token = bearerAgentToken(authorization);
    try {
      return await (token === undefined ? keys(authorization) : agents.authenticate(token));
    } catch (error) {
      if (!(error instanceof ApiError) || !error.details.challenge) throw error;
      throw new ApiError(error.code, error.message, {
        ...error.details,
        challenge: { ...error.details.challenge, resourceMetadata: agents.resourceMetadataUrl },
      });
    }
  };
}
