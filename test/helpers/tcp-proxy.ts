import net from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a real server (Redis, PostgreSQL), that a test stops and restarts to
 * simulate an outage without touching the server others use. Stopped, the port is closed and every
 * open connection is cut; restarted, it listens on the same port again.
 */
export interface TcpProxy {
  port: number;
  /** The target URL with the proxy's host and port (path, user and query kept). */
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  close(): Promise<void>;
}

/** A proxy to `target` (e.g. redis://127.0.0.1:6379/13); `running: false` starts it stopped (port reserved). */
export async function tcpProxy(target: string, { running = true } = {}): Promise<TcpProxy> {
  const to = new URL(target);
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  const port = await freePort();
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String(port);

  const start = async () => {
    if (server) return;
    server = net.createServer((client) => {
      const upstream = net.connect(Number(to.port || (to.protocol.startsWith('postgres') ? 5432 : 6379)), to.hostname);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => server!.once('error', reject).listen(port, '127.0.0.1', resolve));
  };
  const stop = async () => {
    const closing = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
  };
  if (running) await start();
  return { port, url: url.toString(), start, stop, close: stop };
}

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
