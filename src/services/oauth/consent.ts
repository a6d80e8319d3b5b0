import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import { ApiError } from '../../domain/errors';
import type { Account } from '../account-store';
import { consentPath, MCP_SCOPE } from './oauth-provider';

/** What the consent step shows: who asks, for what, and where the answer goes. */
export interface ConsentRequest {
  uid: string;
  clientId: string;
  /** The name the client's metadata document gives (its client_id when it gives none). */
  clientName: string;
  /** The client's home page, from its document, when it gives one. */
  clientUri: string | undefined;
  redirectUri: string;
  resource: string;
  scope: string;
}

/**
 * The provider's pending interaction for `uid`, read as oidc-provider reads it: through the
 * interaction cookie it set in the browser that began the authorization (so a consent link sent to
 * someone else finds nothing), the cookie's signature checked. The account page hands its request's
 * Cookie header; no other part of the request is read.
 */
async function interactionOf(provider: Provider, cookie: string | null, uid: string, secure: boolean) {
  const req = { headers: { cookie: cookie ?? '' }, url: consentPath(uid), method: 'GET', socket: { encrypted: secure } };
  const res = { getHeader: () => undefined, setHeader: () => undefined, headersSent: false };
  const interaction = await provider
    .interactionDetails(req as unknown as IncomingMessage, res as unknown as ServerResponse)
    .catch(() => undefined);
  if (!interaction || interaction.uid !== uid) {
    throw new ApiError(
      'INVALID_REQUEST',
      'This authorization request has expired or was begun in another browser: start again from the agent that sent you here.',
    );
  }
  return { interaction, req, res };
}

export async function consentRequest(provider: Provider, cookie: string | null, uid: string, secure: boolean): Promise<ConsentRequest> {
  const { interaction } = await interactionOf(provider, cookie, uid, secure);
  const params = interaction.params as Record<string, string | undefined>;
  const clientId = params['client_id'] ?? '';
  const client = await provider.Client.find(clientId).catch(() => undefined);
  return {
    uid,
    clientId,
    clientName: client?.clientName ?? clientId,
    clientUri: client?.clientUri ?? undefined,
    redirectUri: params['redirect_uri'] ?? '',
    resource: String(params['resource'] ?? ''),
    scope: params['scope'] ?? MCP_SCOPE,
  };
}

/**
 * The account's answer to the consent step: approved, a grant of the `mcp` scope on the one
 * resource to this client for this account (signed in here, so the provider's own sign-in is this
 * account); refused, access_denied. Either way the address the browser continues at (the
 * provider's, which sends the code or the error to the client's redirect_uri).
 */
export async function answerConsent(
  provider: Provider,
  request: { cookie: string | null; uid: string; secure: boolean },
  account: Account,
  resource: string,
  approved: boolean,
): Promise<string> {
  const { interaction, req, res } = await interactionOf(provider, request.cookie, request.uid, request.secure);
  if (!approved) {
    return provider.interactionResult(
      req as unknown as IncomingMessage,
      res as unknown as ServerResponse,
      { error: 'access_denied', error_description: 'The account owner did not allow this agent.' },
      { mergeWithLastSubmission: false },
    );
  }
  const clientId = String((interaction.params as Record<string, unknown>)['client_id'] ?? '');
  const existing = interaction.grantId ? await provider.Grant.find(interaction.grantId) : undefined;
  const grant = existing && existing.accountId === account.id ? existing : new provider.Grant({ accountId: account.id, clientId });
  grant.addResourceScope(resource, MCP_SCOPE);
  const grantId = await grant.save();
  return provider.interactionResult(req as unknown as IncomingMessage, res as unknown as ServerResponse, {
    login: { accountId: account.id },
    consent: { grantId },
  });
}
