import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { EgressProxy } from '../domain/egress-proxy';
import { refusedAddresses, type WebhookUrlPolicy } from '../domain/webhook-urls';
import { API_VERSION } from '../version';
import { guardedConnection } from './guarded-connection';

/** What one attempt got: the HTTP status, or none and why. */
export interface PostOutcome {
  status: number | null;
  error?: string;
}

export interface PostOptions {
  policy: WebhookUrlPolicy;
  /** The forward proxy of the configuration (HTTPS_PROXY, HTTP_PROXY, NO_PROXY), or none. */
  egress: EgressProxy;
  /** The whole attempt (connect, send, answer) is abandoned after this long. */
  timeoutMs: number;
  /** Certificate authorities trusted besides the system's (tests deliver to https:// on loopback). */
  ca?: string;
  /** The addresses of a host when going through the proxy; the system resolver by default (tests map made-up names). */
  resolveHost?: (host: string) => Promise<string[]>;
}

/** How much of an answer's body is read before the connection is let go (it is not kept). */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * POSTs one signed webhook. The host's addresses are checked where the connection is made, so the
 * address connected to is the one checked (a name that resolved to a public address when the
 * endpoint was added and resolves to a private one now is refused: DNS rebinding), through a proxy
 * too (guarded-connection.ts). Redirects are not followed. Never throws: every failure is an outcome.
 */
export function postWebhook(target: string, headers: Record<string, string>, body: string, options: PostOptions): Promise<PostOutcome> {
  const { policy, timeoutMs } = options;
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      resolve({ status: null, error: 'the URL does not parse' });
      return;
    }
    if (policy.httpsOnly && url.protocol !== 'https:')
      return resolve({ status: null, error: 'refused: only https:// URLs are allowed (API_ENV=production)' });
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(literal) && refusedAddresses([literal], policy).length > 0)
      return resolve({ status: null, error: `refused: ${literal} is not a public address` });
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(url, {
      method: 'POST',
      ...guardedConnection(url, options),
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'user-agent': `measurement-api-webhooks/${API_VERSION}`,
      },
    });
    const timer = setTimeout(() => request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    const finish = (outcome: PostOutcome) => {
      clearTimeout(timer);
      resolve(outcome);
    };
    request.on('error', (error) => finish({ status: null, error: error.message || String(error) }));
    request.on('response', (response) => {
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_ANSWER_BYTES) response.destroy();
      });
      const done = () =>
        finish({
          status: response.statusCode ?? null,
          ...(ok(response.statusCode) ? {} : { error: `answered HTTP ${response.statusCode}` }),
        });
      response.on('end', done);
      response.on('close', done);
      response.on('error', done);
    });
    request.end(body);
  });
}

const ok = (status: number | undefined) => status !== undefined && status >= 200 && status < 300;
