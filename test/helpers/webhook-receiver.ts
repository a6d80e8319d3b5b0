import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request a receiver got. */
export interface ReceivedWebhook {
  headers: Record<string, string>;
  body: string;
}

/**
 * A local webhook receiver on 127.0.0.1 (port 0 the first time, then the same port): it records
 * every POST and answers 204; `stop()` closes it (connections refused), `start()` listens again.
 */
export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function webhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  let port = 0;
  let server: http.Server | undefined;
  const receiver: WebhookReceiver = {
    url: '',
    received,
    async start() {
      if (server) return;
      server = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
          res.writeHead(204).end();
        });
      });
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(port, '127.0.0.1', resolve);
      });
      port = (server.address() as AddressInfo).port;
      receiver.url = `http://127.0.0.1:${port}/hooks`;
    },
    async stop() {
      if (!server) return;
      const closing = new Promise((resolve) => server!.close(resolve));
      server.closeAllConnections();
      await closing;
      server = undefined;
    },
  };
  await receiver.start();
  return receiver;
}

/** Polls `check` until it returns true (every 20 ms, up to `ms`). */
export async function eventually(check: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('the condition did not hold in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A receiver that accepts every request and never answers; it counts requests open, per path and at most. */
export async function blackHole() {
  const sockets = new Set<Socket>();
  const open = new Map<string, number>();
  const most = { total: 0, perPath: 0 };
  let total = 0;
  const server = http.createServer((req) => {
    const path = req.url ?? '';
    open.set(path, (open.get(path) ?? 0) + 1);
    total += 1;
    most.total = Math.max(most.total, total);
    most.perPath = Math.max(most.perPath, open.get(path)!);
    req.socket.once('close', () => {
      open.set(path, open.get(path)! - 1);
      total -= 1;
    });
    req.resume();
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (n: number) => `http://127.0.0.1:${port}/dead/${n}`,
    open: () => total,
    most,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
