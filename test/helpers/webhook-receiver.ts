import http from 'node:http';
import type { AddressInfo } from 'node:net';

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
