import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { EgressProxy } from '../domain/egress-proxy';
import { refusedAddresses, type WebhookUrlPolicy } from '../domain/webhook-urls';
import { API_VERSION } from '../version';
import { guardedConnection } from './guarded-connection';

export interface ClientDocumentFetchOptions {
  /** The webhook URL rules of this environment: in production public addresses only. */
  policy: WebhookUrlPolicy;
  /** The forward proxy of the configuration (HTTPS_PROXY, HTTP_PROXY, NO_PROXY), or none. */
  egress: EgressProxy;
  /** The whole fetch (connect, ask, read) is abandoned after this long. */
  timeoutMs: number;
  /** More of a body than this is not read (the provider refuses a document over its own, lower limit). */
  maxBytes: number;
  /** Certificate authorities trusted besides the system's (tests serve documents on loopback with their own). */
  ca?: string;
  /** The addresses of a host when going through the proxy; the system resolver by default (tests map made-up names). */
  resolveHost?: (host: string) => Promise<string[]>;
}

/**
 * GETs an OAuth client's metadata document (its client_id URL) for the authorization server, under
 * the webhook URL rules: the host's addresses are checked where the connection is made, through a
 * proxy too (no private address in production, DNS rebinding included), no redirect is followed,
 * the answer is read up to `maxBytes` and within `timeoutMs` (or the caller's signal). The answer
 * is a Fetch Response, as oidc-provider's `fetch` option takes; a refusal rejects, which it
 * reports as invalid_client.
 */
export function clientDocumentFetch(options: ClientDocumentFetchOptions): (url: string | URL, init: RequestInit) => Promise<Response> {
  return (target, init) =>
    new Promise((resolve, reject) => {
      const url = new URL(String(target));
      const literal = url.hostname.replace(/^\[|\]$/g, '');
      if (options.policy.httpsOnly && url.protocol !== 'https:') return reject(new Error('refused: only https:// client ids'));
      if (isIP(literal) && refusedAddresses([literal], options.policy).length > 0)
        return reject(new Error(`refused: ${literal} is not a public address`));
      const client = url.protocol === 'https:' ? https : http;
      const request = client.request(url, {
        method: 'GET',
        ...guardedConnection(url, options),
        headers: { accept: 'application/json', 'user-agent': `measurement-api-oauth/${API_VERSION}` },
      });
      const fail = (error: Error) => {
        clearTimeout(timer);
        request.destroy();
        reject(error);
      };
      const timer = setTimeout(() => fail(new Error(`no answer within ${options.timeoutMs / 1000} s`)), options.timeoutMs);
      init.signal?.addEventListener('abort', () => fail(new Error('the fetch was abandoned')), { once: true });
      request.on('error', fail);
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > options.maxBytes) return fail(new Error(`the document is larger than ${options.maxBytes} bytes`));
          chunks.push(chunk);
        });
        response.on('end', () => {
          clearTimeout(timer);
          const headers = new Headers();
          for (const [name, value] of Object.entries(response.headers)) if (typeof value === 'string') headers.set(name, value);
          const status = response.statusCode ?? 502;
          resolve(new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), { status, headers }));
        });
        response.on('error', fail);
      });
      request.end();
    });
}
