import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { loadConfig, type Config } from '../../../src/config';
import { createSourceRatesService, type SourcesServiceDeps } from '../../../src/data/sources';
import { sourceInfo } from '../../../src/domain/sources/catalog';
import { FeedFormatError, type ParsedFeed, type SourceFigure, type SourceId } from '../../../src/domain/sources/types';
import type { SourceRatesService } from '../../../src/services/currency/source-rates';

/**
 * A made-up feed format for the tests, so they never depend on a publisher's: the first line is
 * `tiny <source>`, then one publication a line, `<date> <table or -> <CODE>=<value>[/<units>] …`.
 * A line starting with `?` is a row the parser skips (its reason after the `?`); any other line
 * that does not read is a FeedFormatError at that line.
 */
export function tinyParse(source: SourceId, body: Uint8Array): ParsedFeed {
  const lines = Buffer.from(body).toString('utf8').split('\n');
  if (lines[0]?.trim() !== `tiny ${source}`) throw new FeedFormatError(source, 1, `expected "tiny ${source}"`);
  const feed: ParsedFeed = { publications: [], skipped: [] };
  lines.slice(1).forEach((text, i) => {
    const line = i + 2;
    if (text.trim() === '') return;
    if (text.startsWith('?')) return void feed.skipped.push({ line, reason: text.slice(1).trim() });
    const [date, table, ...pairs] = text.trim().split(/\s+/);
    if (!date || !/^\d{4}-\d{2}-\d{2}$/.test(date) || !table || pairs.length === 0) throw new FeedFormatError(source, line, 'not a row');
    const figures: Record<string, SourceFigure> = {};
    for (const pair of pairs) {
      const match = /^([A-Z]{3})=(\d+(?:\.\d+)?)(?:\/(\d+))?$/.exec(pair);
      if (!match) throw new FeedFormatError(source, line, `not a figure: ${pair}`);
      figures[match[1]!] = { value: match[2]!, units: match[3] ?? '1', direction: 'base-per-units' };
    }
    const t = table === '-' ? '' : table;
    const base = sourceInfo(source).tables.find((x) => x.id === t)?.base ?? sourceInfo(source).base;
    feed.publications.push({ source, table: t, date, base, figures });
  });
  return feed;
}

/** A tiny feed body: `tiny(source, '2026-04-13 - USD=1.3716', …)`. */
export const tiny = (source: SourceId, ...rows: string[]) => [`tiny ${source}`, ...rows].join('\n');

export const silentLogger = pino({ level: 'silent' });

/** Timeouts and retries short enough for tests: a local stand-in answers well within them on a loaded machine, and a hang or a stall still ends in seconds. */
export const FAST = { connectTimeoutMs: 1500, totalTimeoutMs: 3000, tries: 2, retryBaseDelayMs: 1, syncIntervalMs: 25, pollMs: 60_000 };

/** A fetch with no network at all. */
export const offline: typeof fetch = async () => {
  throw new TypeError('fetch failed', { cause: { code: 'ENETUNREACH' } });
};

export interface TempSources {
  dir: string;
  config: Config;
  file(name: string, text: string): string;
  /** A service on this directory's database, tiny parser and no network unless given; stopped by cleanup(). */
  service(deps?: Partial<SourcesServiceDeps>): SourceRatesService;
  cleanup(): Promise<void>;
}

export function tempSources(env: Record<string, string> = {}): TempSources {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sources-'));
  const config = loadConfig({ DATA_DIR: dir, ...env });
  const made: SourceRatesService[] = [];
  return {
    dir,
    config,
    file(name, text) {
      const file = path.join(dir, name);
      writeFileSync(file, text);
      return file;
    },
    service(deps = {}) {
      const service = createSourceRatesService({ config, logger: silentLogger, fetch: offline, parse: tinyParse, tuning: FAST, ...deps });
      made.push(service);
      return service;
    },
    async cleanup() {
      await Promise.allSettled(made.map((s) => s.stop()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A local stand-in for the publishers on 127.0.0.1: a handler per first path segment (the source id). */
export interface FakePublishers {
  url(source: string): string;
  requests: string[];
  route(source: string, handler: Handler): void;
  close(): Promise<void>;
}

export async function startFakePublishers(): Promise<FakePublishers> {
  const routes = new Map<string, Handler>();
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const handler = routes.get((req.url ?? '').split('/')[1] ?? '');
    if (handler) handler(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (source) => `http://127.0.0.1:${port}/${source}`,
    requests,
    route: (source, handler) => routes.set(source, handler),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export const serve =
  (body: string): Handler =>
  (_req, res) =>
    res.writeHead(200, { 'content-type': 'text/plain' }).end(body);

/** Accepts the request and never answers. */
export const hang: Handler = () => undefined;
