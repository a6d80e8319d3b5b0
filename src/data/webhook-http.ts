import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { refusedAddresses, type WebhookUrlPolicy } from '../domain/webhook-urls';
import { API_VERSION } from '../version';

/** The addresses `host` resolves to (every one, both families); an IP literal is its own. */
export async function resolveHost(host: string): Promise<string[]> {
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare)) return [bare];
  const records = await dns.promises.lookup(bare, { all: true, verbatim: true });
  return records.map((record) => record.address);
}

/** What one attempt got: the HTTP status, or none and why. */
export interface PostOutcome {
  status: number | null;
  error?: string;
}

export interface PostOptions {
  policy: WebhookUrlPolicy;
  /** The whole attempt (connect, send, answer) is abandoned after this long. */
  timeoutMs: number;
}

/** How much of an answer's body is read before the connection is let go (it is not kept). */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * POSTs one signed webhook. The host's addresses are checked by the lookup the connection itself
 * uses, so the address connected to is the one checked (a name that resolved to a public address
 * when the endpoint was added and resolves to a private one now is refused: DNS rebinding).
 * Redirects are not followed. Never throws: every failure is an outcome.
 */
export function postWebhook(
  target: string,
  headers: Record<string, string>,
  body: string,
  { policy, timeoutMs }: PostOptions,
): Promise<PostOutcome> {
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
      lookup: guardedLookup(policy),
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

/** dns.lookup that fails when any address of the name breaks the policy. */
export function guardedLookup(policy: WebhookUrlPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as dns.LookupAddress[];
      const refused = refusedAddresses(
        list.map((entry) => entry.address),
        policy,
      );
      if (refused.length > 0) {
        const refusal = Object.assign(new Error(`refused: ${hostname} resolves to a non-public address`), { code: 'EADDRNOTPUBLIC' });
        return callback(refusal, '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      const first = list[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      callback(null, first.address, first.family);
    });
  };
}
