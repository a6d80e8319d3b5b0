import net from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a real server (Redis, PostgreSQL), that a test stops and
 * restarts, cuts, stalls or makes hang to simulate an outage without touching the server others use.
 * Stopped, the port is closed and every open connection is cut; restarted, it listens on the same
 * port again.
 */
export interface TcpProxy {
  /** The port it listens on (the same across stop and start). */
  port: number;
  /** The target URL with the proxy's host and port (path, user and query kept). */
  url: string;
  /** Listens again on the same port. */
  start(): Promise<void>;
  /** Closes the listener and cuts every connection: clients see refused connections, as with a server that is down. */
  stop(): Promise<void>;
  /** Cuts every connection and accepts new ones without forwarding anything (a server that hangs); `resume()` ends it. */
  hang(): void;
  resume(): void;
  /**
   * Cuts every open connection and keeps accepting new ones: `rst` resets the clients' side (as a
   * middlebox or a dead host's reset does), `fin` closes it in order (as a server shutting down).
   */
  cut(how: 'rst' | 'fin'): void;
  /** Stops moving bytes, both ways, on open connections and on new ones (a hung network); nothing is lost or cut. */
  stall(): void;
  /** Delivers what a stall held back, in order, and forwards again. */
  unstall(): void;
  /** Connections open through the proxy now. */
  connections(): number;
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  upstream: net.Socket;
  /** Bytes held back by a stall, per direction, in arrival order. */
  toUpstream: Buffer[];
  toClient: Buffer[];
}

/** A proxy to `target` (e.g. redis://127.0.0.1:6379/13); `running: false` starts it stopped (port reserved). */
export async function tcpProxy(target: string, { running = true } = {}): Promise<TcpProxy> {
  const to = new URL(target);
  const targetPort = Number(to.port || (to.protocol.startsWith('postgres') ? 5432 : 6379));
  const sockets = new Set<net.Socket>();
  const pairs = new Set<Pair>();
  let server: net.Server | undefined;
  let hanging = false;
  let stalled = false;
  const port = await freePort();
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String(port);

  const cutAll = () => {
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    pairs.clear();
  };
  const forward = (pair: Pair) => {
    const { client, upstream } = pair;
    client.on('data', (chunk: Buffer) => (stalled ? pair.toUpstream.push(chunk) : upstream.write(chunk)));
    upstream.on('data', (chunk: Buffer) => (stalled ? pair.toClient.push(chunk) : client.write(chunk)));
  };
  const start = async () => {
    if (server) return;
    const s = net.createServer((client) => {
      sockets.add(client);
      client.on('close', () => sockets.delete(client));
      client.on('error', () => client.destroy());
      if (hanging) return;
      const upstream = net.connect(targetPort, to.hostname);
      sockets.add(upstream);
      const pair: Pair = { client, upstream, toUpstream: [], toClient: [] };
      pairs.add(pair);
      upstream.on('close', () => sockets.delete(upstream));
      upstream.on('error', () => upstream.destroy());
      forward(pair);
      // One side ending ends the other the same way (FIN for FIN, reset for reset).
      client.on('end', () => upstream.end());
      upstream.on('end', () => client.end());
      client.on('close', () => {
        pairs.delete(pair);
        upstream.destroy();
      });
      upstream.on('close', () => {
        pairs.delete(pair);
        if (client.readyState !== 'closed') client.destroy();
      });
    });
    await new Promise<void>((resolve, reject) => s.once('error', reject).listen(port, '127.0.0.1', resolve));
    server = s;
  };
  const stop = async () => {
    const closing = server;
    server = undefined;
    cutAll();
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
  };
  if (running) await start();
  return {
    port,
    url: url.toString(),
    start,
    stop,
    hang() {
      hanging = true;
      cutAll();
    },
    resume() {
      hanging = false;
      cutAll();
    },
    cut(how) {
      for (const pair of [...pairs]) {
        pairs.delete(pair);
        if (how === 'rst') {
          pair.client.resetAndDestroy();
          pair.upstream.destroy();
        } else {
          pair.client.end();
          pair.upstream.end();
        }
      }
    },
    stall() {
      stalled = true;
    },
    unstall() {
      stalled = false;
      for (const pair of pairs) {
        for (const chunk of pair.toUpstream.splice(0)) pair.upstream.write(chunk);
        for (const chunk of pair.toClient.splice(0)) pair.client.write(chunk);
      }
    },
    connections: () => pairs.size,
    close: stop,
  };
}

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
