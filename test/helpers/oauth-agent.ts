import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** A made-up TLS identity for 127.0.0.1 (and `dnsNames`), made with openssl for the run (never committed): the agent's document host. */
export function loopbackCertificate(dnsNames: readonly string[] = []): { key: string; cert: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'oauth-cert-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '2',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        ['subjectAltName=IP:127.0.0.1', ...dnsNames.map((name) => `DNS:${name}`)].join(','),
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(path.join(dir, 'key.pem'), 'utf8'), cert: readFileSync(path.join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A made-up agent's Client ID Metadata Documents on https loopback: `/client.json` (good), `/big.json`
 * (over 5 KiB), `/slow.json` (answers after 4 s), `/other-id.json` (names another client_id).
 */
export async function agentDocuments(tls: { key: string; cert: string }) {
  let base = '';
  /** Every URL the browser was sent back to at the redirect_uri, as the agent received it. */
  const callbacks: URL[] = [];
  const document = (id: string, extra: Record<string, unknown> = {}) => ({
    client_id: id,
    client_name: 'Test Agent',
    client_uri: 'https://agent.example/',
    redirect_uris: [`${base}/callback`],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...extra,
  });
  const server = createHttpsServer(tls, (req, res) => {
    const send = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.url === '/client.json') return send(document(`${base}/client.json`));
    if (req.url === '/big.json') return send(document(`${base}/big.json`, { padding: 'x'.repeat(6 * 1024) }));
    if (req.url === '/other-id.json') return send(document(`${base}/client.json`));
    if (req.url?.startsWith('/callback')) {
      callbacks.push(new URL(req.url, base));
      res.writeHead(200, { 'content-type': 'text/html' });
      return void res.end('<p>Connected.</p>');
    }
    if (req.url === '/slow.json') return void setTimeout(() => send(document(`${base}/slow.json`)), 4_000).unref();
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, clientId: `${base}/client.json`, redirectUri: `${base}/callback`, callbacks, close: () => closeServer(server) };
}

/** A free loopback port, found by listening on port 0 once: the issuer's origin is known before the app is built. */
export async function freePort(): Promise<number> {
  const probe = createHttpServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await closeServer(probe);
  return port;
}

export function closeServer(server: Server | ReturnType<typeof createHttpsServer>): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** PKCE (RFC 7636): a verifier and its S256 challenge. */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A browser's cookies, by name, for one origin: what fetch (redirect: manual) does not keep. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();
  take(response: Response): Response {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const name = pair!.slice(0, pair!.indexOf('='));
      const value = pair!.slice(pair!.indexOf('=') + 1);
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/** An agent's `tools/call convert` (12 inches to centimetres) on `issuer`'s /mcp with `accessToken`, as the 2025-11-25 revision sends it. */
export function callConvertTool(issuer: string, accessToken: string): Promise<Response> {
  return fetch(`${issuer}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'convert', arguments: { value: '12', from: 'inch', to: 'centimeter' } },
    }),
  });
}
