import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { zipSync } from 'fflate';
import pino from 'pino';
import { loadConfig, type Config } from '../../../src/config';
import { createRatesService, type RatesServiceDeps } from '../../../src/data/rates';
import type { RatesService } from '../../../src/services/currency/rates';

export const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/ecb');

export function fixtureBytes(name: string): Buffer {
  return readFileSync(path.join(FIXTURES, name));
}

/** The wide history fixture (2026-04-09, -10, -13) zipped the way the ECB ships eurofxref-hist.zip. */
export function historyZip(): Uint8Array {
  return zipSync({ 'eurofxref-hist.csv': fixtureBytes('hist-wide.csv') });
}

/** Tuesday 2026-04-14, 19:00 in Berlin: that day's publication (16:00) is due and, with 2 h grace, overdue. */
export const TUESDAY_EVENING = new Date('2026-04-14T17:00:00Z');

export const silentLogger = pino({ level: 'silent' });

/** Timeouts and retries short enough for tests: a local stand-in answers well within them on a loaded machine, and a hang or a stall still ends in seconds. */
export const FAST = {
  connectTimeoutMs: 1500,
  fileTimeoutMs: 3000,
  historyTimeoutMs: 3000,
  tries: 2,
  retryBaseDelayMs: 1,
  syncIntervalMs: 25,
};

/** A fetch with no network at all. */
export const offline: typeof fetch = async () => {
  throw new TypeError('fetch failed', { cause: { code: 'ENETUNREACH' } });
};

export interface TempRates {
  dir: string;
  config: Config;
  /** A service on this directory's cache; every one made is stopped by cleanup(). */
  service(deps?: Partial<RatesServiceDeps>): RatesService;
  cleanup(): Promise<void>;
}

export function tempRates(env: Record<string, string> = {}): TempRates {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rates-'));
  const config = loadConfig({ DATA_DIR: dir, ...env });
  const made: RatesService[] = [];
  return {
    dir,
    config,
    service(deps = {}) {
      const service = createRatesService({
        config,
        logger: silentLogger,
        clock: () => TUESDAY_EVENING,
        fetch: offline,
        tuning: FAST,
        ...deps,
      });
      made.push(service);
      return service;
    },
    async cleanup() {
      await Promise.allSettled(made.map((service) => service.stop()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A local stand-in for the ECB on 127.0.0.1: a handler per file name, every request recorded. */
export interface FakeEcb {
  url: string;
  requests: { file: string; headers: IncomingMessage['headers'] }[];
  route(file: string, handler: Handler): void;
  count(file: string): number;
  close(): Promise<void>;
}

export async function startFakeEcb(): Promise<FakeEcb> {
  const routes = new Map<string, Handler>();
  const requests: FakeEcb['requests'] = [];
  const server = createServer((req, res) => {
    const file = (req.url ?? '').split('/').pop() ?? '';
    requests.push({ file, headers: req.headers });
    (routes.get(file) ?? status(404))(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/stats/eurofxref`,
    requests,
    route: (file, handler) => routes.set(file, handler),
    count: (file) => requests.filter((r) => r.file === file).length,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** 200 with `body`, honouring If-None-Match when an ETag is given (304 then). */
export function serve(body: Uint8Array | string, options: { etag?: string; type?: string; delayMs?: number } = {}): Handler {
  return (req, res) => {
    const send = () => {
      if (options.etag && req.headers['if-none-match'] === options.etag) return res.writeHead(304, { etag: options.etag }).end();
      res.writeHead(200, { 'content-type': options.type ?? 'text/xml', ...(options.etag ? { etag: options.etag } : {}) }).end(body);
    };
    if (options.delayMs) setTimeout(send, options.delayMs);
    else send();
  };
}

export function status(code: number): Handler {
  return (_req, res) => res.writeHead(code, { 'content-type': 'text/plain' }).end(`HTTP ${code}`);
}

/** Accepts the request and never answers. */
export const hang: Handler = () => undefined;

/** Sends the headers and the first bytes of the body, then stalls. */
export const stallBody: Handler = (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/xml' });
  res.write('<?xml version="1.0" encoding="UTF-8"?>');
};
