import http from 'node:http';
import net from 'node:net';

/**
 * A forward proxy on 127.0.0.1 that records what it is asked: `CONNECT host:port` tunnels and
 * absolute-form requests (`GET http://host/path`). It resolves no name itself: `route` says which
 * loopback port a requested host and port reach, and anything it does not route is answered 502,
 * so a request the proxy was not asked for exactly fails.
 */
export interface ForwardProxy {
  /** `http://127.0.0.1:<port>`, for HTTPS_PROXY or HTTP_PROXY. */
  url: string;
  /** Every request, in arrival order, as its first line reads: `CONNECT 127.0.0.1:4443`, `GET http://ecb.test/x`. */
  asked: string[];
  /** The Proxy-Authorization header of each request, or undefined. */
  authorizations: (string | undefined)[];
  close(): Promise<void>;
}

export type ProxyRoute = (host: string, port: number) => number | undefined;

export async function startForwardProxy(route: ProxyRoute): Promise<ForwardProxy> {
  const asked: string[] = [];
  const authorizations: (string | undefined)[] = [];
  const tunnels = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    authorizations.push(req.headers['proxy-authorization']);
    const target = URL.canParse(req.url ?? '') ? new URL(req.url!) : undefined;
    const port = target && route(target.hostname, Number(target.port) || 80);
    if (!target || port === undefined) return void res.writeHead(502).end();
    const { 'proxy-authorization': _auth, ...headers } = req.headers;
    const upstream = http.request(
      { host: '127.0.0.1', port, method: req.method, path: `${target.pathname}${target.search}`, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    asked.push(`CONNECT ${req.url}`);
    authorizations.push(req.headers['proxy-authorization']);
    tunnels.add(client);
    client.on('close', () => tunnels.delete(client));
    client.on('error', () => client.destroy());
    const [, host = '', portText = ''] = /^\[?([^\]]*?)\]?:(\d+)$/.exec(req.url ?? '') ?? [];
    const port = route(host, Number(portText));
    if (port === undefined) return void client.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n');
    const upstream = net.connect(port, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    asked,
    authorizations,
    close: () => {
      for (const socket of tunnels) socket.destroy();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
