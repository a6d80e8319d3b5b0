import type { Server } from 'node:http';
import { connect } from 'node:net';
import type { MetricsAccess } from '../../src/config';
import { parseTrustProxy } from '../../src/domain/client-ip';
import { createHttpServer } from '../../src/http/front/node-server';
import { createLogger } from '../../src/logger';
import type { TestApp } from './app';

/** A test app behind the real node:http front, wired as main.ts wires it, on 127.0.0.1 and a free port. */
export async function listen(
  t: TestApp,
  options: { metricsAccess?: MetricsAccess; trustProxy?: string; maxConnections?: number } = {},
): Promise<{ base: string; port: number; server: Server; close(): Promise<void> }> {
  const server = createHttpServer({
    front: t.app.front,
    logger: createLogger('silent'),
    metricsAccess: options.metricsAccess ?? { mode: 'local' },
    trust: parseTrustProxy(options.trustProxy),
    ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }),
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    server,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export interface RawResponse {
  /** `HTTP/1.1 404 Not Found`, as sent. */
  statusLine: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends raw bytes, reads until the server closes the connection, and parses the one answer. */
export function rawRequest(port: number, bytes: string | Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    // The server may close while we still write: what it answered is what counts.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      if (split < 0) return reject(new Error(`no HTTP answer: ${JSON.stringify(text.slice(0, 200))}`));
      const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      resolve({ statusLine: statusLine!, status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(split + 4) });
    });
    socket.write(bytes);
  });
}
