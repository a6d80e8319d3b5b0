import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import tls from 'node:tls';
import { proxyFor, type EgressProxy } from '../domain/egress-proxy';
import { refusedAddresses, type WebhookUrlPolicy } from '../domain/webhook-urls';

/** The addresses `host` resolves to (every one, both families); an IP literal is its own. */
export async function resolveHost(host: string): Promise<string[]> {
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare)) return [bare];
  const records = await dns.promises.lookup(bare, { all: true, verbatim: true });
  return records.map((record) => record.address);
}

export interface GuardedConnectionOptions {
  /** The webhook URL rules of this environment: in production public addresses only. */
  policy: WebhookUrlPolicy;
  /** The forward proxy, if any (HTTPS_PROXY, HTTP_PROXY, NO_PROXY). */
  egress: EgressProxy;
  /** How long the proxy may take to open the tunnel. */
  timeoutMs: number;
  /** Certificate authorities trusted besides the system's (tests serve on loopback with their own). */
  ca?: string;
  /** The addresses of a host; resolveHost by default (tests map made-up names). */
  resolveHost?: (host: string) => Promise<string[]>;
}

/**
 * Direct connections use agents of their own: NODE_USE_ENV_PROXY proxies Node's global agents,
 * which would send a request to the proxy with the lookup checking the proxy's address instead of
 * the target's. Their settings are the global agents' (keep-alive, 5 s idle).
 */
const DIRECT_AGENTS = {
  'http:': new http.Agent({ keepAlive: true, timeout: 5_000 }),
  'https:': new https.Agent({ keepAlive: true, timeout: 5_000 }),
};

/**
 * How a request under the webhook URL rules connects to `url`, as node:http(s) request options.
 * Directly, the connection's own lookup checks every address of the host (guardedLookup), so the
 * address connected to is the one checked. Through a proxy, the host is resolved here, every
 * address is checked, and the proxy is asked to CONNECT to the first one as an IP literal: the
 * proxy's resolver never chooses where the request goes, so a name rebound after the check cannot
 * reach an internal address through it. TLS still checks the certificate against the host name
 * (and sends it as SNI), and Host still names it.
 */
export function guardedConnection(url: URL, options: GuardedConnectionOptions): http.RequestOptions {
  const ca = options.ca ? { ca: options.ca } : {};
  const proxy = proxyFor(url, options.egress);
  if (proxy === undefined) {
    return {
      agent: url.protocol === 'https:' ? DIRECT_AGENTS['https:'] : DIRECT_AGENTS['http:'],
      lookup: guardedLookup(options.policy),
      ...ca,
    };
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  return {
    // Without an agent, node:http would take 80 as the default port and write `Host: name:80` for https.
    defaultPort: url.protocol === 'https:' ? 443 : 80,
    createConnection: (_options, done) => {
      checkedTunnel(new URL(proxy), host, port, options).then(
        (socket) =>
          done(null, url.protocol === 'https:' ? tls.connect({ socket, host, servername: isIP(host) ? undefined : host, ...ca }) : socket),
        (error: Error) => done(error, undefined as never),
      );
      return undefined;
    },
  };
}

/** Resolves `host`, checks every address against the policy, and opens a tunnel through the proxy to the first. */
async function checkedTunnel(proxy: URL, host: string, port: number, options: GuardedConnectionOptions): Promise<Socket> {
  const addresses = await (options.resolveHost ?? resolveHost)(host);
  const first = addresses[0];
  if (first === undefined) throw Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND' });
  if (refusedAddresses(addresses, options.policy).length > 0) throw nonPublic(host);
  return connectTunnel(proxy, `${isIP(first) === 6 ? `[${first}]` : first}:${port}`, options.timeoutMs);
}

/** A CONNECT through `proxy` to `authority` (an IP literal and a port): the open socket, or why not. */
function connectTunnel(proxy: URL, authority: string, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const auth =
      proxy.username || proxy.password
        ? {
            'proxy-authorization': `Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}`,
          }
        : {};
    const request = (proxy.protocol === 'https:' ? https : http).request({
      host: proxy.hostname.replace(/^\[|\]$/g, ''),
      port: Number(proxy.port) || (proxy.protocol === 'https:' ? 443 : 80),
      method: 'CONNECT',
      path: authority,
      headers: { host: authority, ...auth },
      agent: false,
      timeout: timeoutMs,
    });
    request.once('timeout', () => {
      reject(new Error(`the proxy opened no tunnel within ${timeoutMs / 1000} s`));
      request.destroy();
    });
    request.once('error', (error) => reject(new Error(`the proxy could not be reached: ${error.message}`)));
    request.once('connect', (response, socket, head) => {
      request.setTimeout(0);
      if (response.statusCode !== 200) {
        socket.destroy();
        return reject(new Error(`the proxy answered HTTP ${response.statusCode} to CONNECT`));
      }
      if (head.length > 0) socket.unshift(head);
      resolve(socket);
    });
    request.end();
  });
}

function nonPublic(hostname: string): Error {
  return Object.assign(new Error(`refused: ${hostname} resolves to a non-public address`), { code: 'EADDRNOTPUBLIC' });
}

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
      if (refused.length > 0) return callback(nonPublic(hostname), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      const first = list[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      callback(null, first.address, first.family);
    });
  };
}
