import net from 'node:net';

export interface TcpProxy {
  /** The port it listens on (the same across stop and start). */
  port: number;
  /** Closes the listener and cuts every connection: clients see refused connections, as with a database that is down. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  /** Cuts every connection and accepts new ones without forwarding anything (a database that hangs); `resume()` ends it. */
  hang(): void;
  resume(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy on loopback in front of `target` (a PostgreSQL server, here), which a test stops and
 * starts to simulate the database going away and coming back, without touching the real server.
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;
  let hanging = false;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = net.createServer((client) => {
        if (hanging) {
          sockets.add(client);
          client.on('error', () => client.destroy());
          return;
        }
        const upstream = net.connect(target.port, target.host);
        sockets.add(client).add(upstream);
        const drop = () => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        client.on('error', drop).on('close', drop);
        upstream.on('error', drop).on('close', drop);
        client.pipe(upstream).pipe(client);
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as net.AddressInfo).port;
        server = s;
        resolve();
      });
    });
  const stop = async () => {
    const s = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  await listen();
  return {
    get port() {
      return port;
    },
    stop,
    start: listen,
    hang() {
      hanging = true;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    resume() {
      hanging = false;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    close: stop,
  };
}
