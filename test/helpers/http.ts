import { Agent, createServer, request, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Logger } from 'pino';
import type { App } from '../../src/app';
import { parseTrustProxy } from '../../src/domain/client-ip';
import { createHttpServer, frontListener, type FrontListener } from '../../src/http/front/node-server';
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
    createHttpServer({
      front: app.front,
      logger,
      metricsAccess: { mode: 'local' },
      trust: parseTrustProxy(trustProxy),
      maxHeaderSize: SUITE_HEADER_LIMIT,
    }),
  );
}

/** The front's request listener alone, for a suite's own node:http server or an in-process request. */
export function frontListenerOf(app: Pick<App, 'front'>, options: { logger?: Logger; trustProxy?: string } = {}): FrontListener {
  return frontListener({
    front: app.front,
    logger: options.logger ?? createLogger('silent'),
    metricsAccess: { mode: 'local' },
    trust: parseTrustProxy(options.trustProxy),
  });
}

function onLoopback(make: () => Server) {
  let server: Server | undefined;
  let origin: Promise<string> | undefined;
  const agent = new Agent({ keepAlive: true });
  const start = (): Promise<string> => {
    origin ??= new Promise((resolve) => {
      server = make();
      server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server!.address() as AddressInfo).port}`));
    });
    return origin;
  };
  return {
    origin: start,
    /** One request to this server over loopback (see loopbackFetch), on a keep-alive connection. */
    async fetch(target: string, init: LoopbackInit = {}): Promise<Response> {
      return loopbackFetch(await start(), target, init, agent);
    },
    async close(): Promise<void> {
      agent.destroy();
      if (!server) return;
      server.closeAllConnections();
      await new Promise((resolve) => server!.close(resolve));
    },
  };
}

/** What loopbackFetch sends: a method, exactly these headers, and a body of bytes, text, a form or a stream. */
export interface LoopbackInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array | URLSearchParams | ReadableStream<Uint8Array>;
}

/**
 * A fetch-like request over a real socket that sends only the headers given (node:http adds Host
 * and the framing: Content-Length for a whole body, chunked transfer for a stream), unlike global
 * fetch, which adds Accept, Accept-Language, Accept-Encoding and Sec-Fetch-Mode, and decompresses
 * answers. The answer is a Response with its bytes as they came (compressed ones too); redirects
 * are not followed. The target is resolved as a URL client would (dot segments, non-ASCII), so
 * `rawRequest` is the one for targets that must reach the server as written.
 */
export function loopbackFetch(origin: string, target: string, init: LoopbackInit = {}, agent?: Agent): Promise<Response> {
  const url = new URL(target, origin);
  const method = init.method ?? 'GET';
  const body = init.body instanceof URLSearchParams ? init.body.toString() : init.body;
  const headers: Record<string, string> = { ...init.headers };
  const ownFraming = Object.keys(headers).some((name) => /^(content-length|transfer-encoding)$/i.test(name));
  if ((typeof body === 'string' || body instanceof Uint8Array) && !ownFraming) {
    headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
  }
  return new Promise((resolve, reject) => {
    // A request that states its own framing gets a connection of its own, as rawRequest's do.
    const req = request(url, { method, headers, agent: ownFraming || agent === undefined ? false : agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve(responseOf(res, Buffer.concat(chunks), method)));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body === undefined || typeof body === 'string' || body instanceof Uint8Array) req.end(body);
    else Readable.fromWeb(body as WebReadableStream<Uint8Array>).pipe(req);
  });
}

function responseOf(res: IncomingMessage, bytes: Buffer, method: string): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const status = res.statusCode!;
  const bodyless = method === 'HEAD' || status === 204 || status === 304;
  return new Response(bodyless ? null : new Uint8Array(bytes), { status, statusText: res.statusMessage ?? '', headers });
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
export function rawRequest(
  origin: string,
  method: string,
  target: string,
  headers: Record<string, string>,
  body?: string,
): Promise<RawAnswer> {
  const path = wireTarget(target);
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    // A connection of its own: a hostile request whose framing lies (Content-Length without a body)
    // must not spill into the next request's bytes.
    const req = request(
      {
        hostname,
        port,
        method,
        path,
        agent: false,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) },
      },
      (res) => {
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
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
