import { createServer, request, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { App } from '../../src/app';
import { parseTrustProxy } from '../../src/domain/client-ip';
import { createHttpServer } from '../../src/http/node-server';
import { createLogger } from '../../src/logger';

/** A raw HTTP/1.1 answer: what went over the wire, headers lower-cased by Node. */
export interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
}

/** Header limits far above Node's 16 KiB: the suites test the app's answers to huge headers, not Node's parser. */
const SUITE_HEADER_LIMIT = 4 * 1024 * 1024;

/** A listener on a loopback port, started on first use and closed by `close`. */
export function loopbackServer(listener: RequestListener) {
  return onLoopback(() => {
    const server = createServer({ maxHeaderSize: SUITE_HEADER_LIMIT }, listener);
    server.keepAliveTimeout = 1000;
    return server;
  });
}

/**
 * An app behind the node:http front main.ts runs (createHttpServer: the fast lane first when on,
 * then Yoga), on a loopback port started on first use, with the suites' header limit.
 */
export function frontServer(app: Pick<App, 'yoga' | 'edge' | 'metrics'>, options: { logger?: Logger; trustProxy?: string } = {}) {
  const { logger = createLogger('silent'), trustProxy } = options;
  return onLoopback(() =>
    createHttpServer({ handler: app.yoga, edge: app.edge, logger, metrics: app.metrics, metricsAccess: { mode: 'local' }, trust: parseTrustProxy(trustProxy), maxHeaderSize: SUITE_HEADER_LIMIT }),
  );
}

function onLoopback(make: () => Server) {
  let server: Server | undefined;
  let origin: Promise<string> | undefined;
  return {
    origin(): Promise<string> {
      origin ??= new Promise((resolve) => {
        server = make();
        server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server!.address() as AddressInfo).port}`));
      });
      return origin;
    },
    async close(): Promise<void> {
      if (!server) return;
      server.closeAllConnections();
      await new Promise((resolve) => server!.close(resolve));
    },
  };
}

/**
 * The request target rawRequest puts on the wire: characters outside printable ASCII as UTF-8
 * percent-escapes (lone surrogates as U+FFFD, as a WHATWG URL parser would send them) and `#` as
 * `%23`, so the whole text reaches the server, fragment-like parts included.
 */
export function wireTarget(target: string): string {
  const utf8 = (c: string) => [...Buffer.from(c, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  return target.replace(/[^\u0021-\u007e]/gu, utf8).replace(/#/g, '%23');
}

/**
 * Sends the request target as it is written (no client-side URL normalisation: dot segments, `%zz`
 * and the like reach the server as a hostile client would send them); only characters HTTP/1.1
 * cannot carry in a request line at all are percent-encoded first (wireTarget).
 */
export function rawRequest(origin: string, method: string, target: string, headers: Record<string, string>, body?: string): Promise<RawAnswer> {
  const path = wireTarget(target);
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    // A connection of its own: a hostile request whose framing lies (Content-Length without a body)
    // must not spill into the next request's bytes.
    const req = request({ hostname, port, method, path, agent: false, headers: { ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const out = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) out.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        resolve({ status: res.statusCode!, headers: out, text: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
