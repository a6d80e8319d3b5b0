import { createServer, request, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { App } from '../../src/app';
import { parseTrustProxy } from '../../src/domain/client-ip';
import { createHttpServer, frontListener, type FrontListener } from '../../src/http/node-server';
import { createLogger } from '../../src/logger';

/** A raw HTTP/1.1 answer: what went over the wire, headers lower-cased by Node. */
export interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The body's bytes as received. */
  bytes: Buffer;
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
 * An app behind the node:http front main.ts runs (createHttpServer), on a loopback port started on first use, with the suites' header limit.
 */
export function frontServer(app: Pick<App, 'front'>, options: { logger?: Logger; trustProxy?: string } = {}) {
  const { logger = createLogger('silent'), trustProxy } = options;
  return onLoopback(() =>
    createHttpServer({ front: app.front, logger, metricsAccess: { mode: 'local' }, trust: parseTrustProxy(trustProxy), maxHeaderSize: SUITE_HEADER_LIMIT }),
  );
}

/** The front's request listener alone, for a suite's own node:http server or an in-process request. */
export function frontListenerOf(app: Pick<App, 'front'>, options: { logger?: Logger; trustProxy?: string } = {}): FrontListener {
  return frontListener({ front: app.front, logger: options.logger ?? createLogger('silent'), metricsAccess: { mode: 'local' }, trust: parseTrustProxy(options.trustProxy) });
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
          if (Array.isArray(value)) for (const item of value) out.append(name, item);
          else if (value !== undefined) out.set(name, value);
        }
        const bytes = Buffer.concat(chunks);
        resolve({ status: res.statusCode!, headers: out, text: bytes.toString('utf8'), bytes });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const fetchServers = new WeakMap<object, Promise<string>>();

/**
 * A Fetch-style client of an app through its real front (one loopback listener per app, kept for
 * the suite's life and never holding the process open): the URL's host is sent as Host, the answer
 * is what went over the wire.
 */
export function frontFetch(app: Pick<App, 'front'>): (url: string, init?: RequestInit) => Promise<Response> {
  let origin = fetchServers.get(app);
  if (origin === undefined) {
    const server = createHttpServer({ front: app.front, logger: createLogger('silent'), metricsAccess: { mode: 'local' }, trust: parseTrustProxy(undefined), maxHeaderSize: SUITE_HEADER_LIMIT });
    server.keepAliveTimeout = 1000;
    origin = new Promise((resolve) => {
      server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
      server.unref();
    });
    fetchServers.set(app, origin);
  }
  const listening = origin;
  return async (url, init = {}) => {
    const target = new URL(url);
    const headers: Record<string, string> = { host: target.host };
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const body = init.body === undefined || init.body === null ? undefined : typeof init.body === 'string' ? init.body : String(init.body);
    const answer = await rawRequest(await listening, init.method ?? 'GET', `${target.pathname}${target.search}`, headers, body);
    const bodyless = [204, 304].includes(answer.status) || init.method === 'HEAD';
    return new Response(bodyless ? null : new Uint8Array(answer.bytes), { status: answer.status, headers: answer.headers });
  };
}
