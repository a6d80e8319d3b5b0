import { EnvHttpProxyAgent, fetch as undiciFetch } from 'undici';
import { noProxyText, type EgressProxy } from '../domain/egress-proxy';

/**
 * The fetch of requests to hosts the operator configured (the rates' publishers): through the
 * configuration's proxy (undici's EnvHttpProxyAgent, given the values so it reads no environment
 * of its own), directly when none is set. Node's own fetch ignores HTTPS_PROXY unless started with
 * NODE_USE_ENV_PROXY=1, and then by its own reading of the environment; this one follows the
 * configuration whatever the flags. Redirects are followed, each hop through the proxy or not by
 * its own host.
 */
export function egressFetch(egress: EgressProxy): typeof fetch {
  if (egress.httpProxy === undefined && egress.httpsProxy === undefined) return globalThis.fetch;
  const dispatcher = new EnvHttpProxyAgent({
    httpProxy: egress.httpProxy ?? '',
    httpsProxy: egress.httpsProxy ?? egress.httpProxy ?? '',
    noProxy: noProxyText(egress.noProxy),
  });
  const proxied = (input: string | URL | Request, init?: RequestInit) =>
    undiciFetch(input as Parameters<typeof undiciFetch>[0], { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher });
  return proxied as unknown as typeof fetch;
}
