import { request } from 'node:http';
import { expect } from 'vitest';
import { loadConfig } from '../../src/config';
import { migrateDatabase } from '../../src/data/open-store';
import type { PlanId } from '../../src/domain/plans';
import type { HeldSources } from '../../src/services/currency/held-sources';
import { currentMonth } from '../../src/domain/quota';
import { createTestApp, type TestApp } from './app';
import type { RawAnswer } from './http';
import { freshDatabase, type FreshDatabase } from './postgres';
import { MADE_UP_PUBLICATIONS, tableRates } from './table-rates';
import { yogaGraphQLHandler } from '../../scripts/yoga-reference/yoga-graphql';

/**
 * GraphQL's oracle, live at HEAD: two apps on one store, rates and clock, each behind the node:http
 * front main.ts runs, on a loopback port: `executor` (the app as it runs) and `yoga` (the same app
 * whose /graphql is graphql-yoga's own handler with the project's steps as plugins:
 * scripts/yoga-reference/). Each request is sent to both, with the keys of twin accounts (same plan, same
 * usage), and the answers must be the same: status, headers (but the request id, the date and the
 * connection's), body (but the request id, key ids, signatures and the rate-limit counters, which
 * depend on timing). Keys are written as templates (`key('business')`) and swapped for each app's
 * twin on the wire, and back in its answer. On SQLite, or on a fresh PostgreSQL database; the ECB's
 * made-up rates alone, or with other sources' publications; Yoga executing on graphql-js, or on
 * graphql-jit (`jit`: the bench's graphql-yoga-jit row).
 */
export interface ParityRequest {
  method: string;
  /** The request target, sent exactly as written (non-ASCII characters as their Latin-1 bytes). */
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** Sent with Transfer-Encoding: chunked instead of a Content-Length. */
  chunked?: boolean;
}

export interface GraphQLOracle {
  executor: TestApp;
  yoga: TestApp;
  /** A key template for twin fresh accounts of this plan (with `used` conversions of their quota spent). */
  key(plan: PlanId, used?: number): Promise<string>;
  /** Sends the request to both apps and requires the same answer; the executor's answer as received. */
  expectSameAnswer(request: ParityRequest): Promise<RawAnswer>;
  close(): Promise<void>;
}

const NOW = new Date('2024-04-03T12:00:00Z');
const LIMITS = { KEY_RATE_LIMIT: '1000000', PUBLIC_RATE_LIMIT: '1000000' };
const IGNORED_HEADERS = new Set(['date', 'x-request-id', 'connection', 'keep-alive']);
type Side = 'executor' | 'yoga';

export async function createGraphQLOracle(
  backend: 'sqlite' | 'postgres' = 'sqlite',
  options: { sources?: HeldSources; jit?: boolean } = {},
): Promise<GraphQLOracle> {
  const env: Record<string, string> = { ...LIMITS };
  let database: FreshDatabase | undefined;
  if (backend === 'postgres') {
    database = await freshDatabase();
    env['DATABASE_URL'] = database.url;
    await migrateDatabase(loadConfig(env));
  }
  const rates = tableRates(MADE_UP_PUBLICATIONS);
  const shared = { rates, clock: () => NOW, ...(options.sources ? { sources: options.sources } : {}) };
  const executor = await createTestApp(env, shared);
  const yoga = await createTestApp(env, {
    ...shared,
    store: executor.store,
    graphql: (parts) => yogaGraphQLHandler(parts, { jit: options.jit ?? false }),
  });
  /** Each template with its twins' keys. */
  const keys: Array<{ template: string } & Record<Side, string>> = [];
  const toWire = (text: string, side: Side) => keys.reduce((acc, k) => acc.split(k.template.slice(9)).join(k[side].slice(9)), text);
  const fromWire = (text: string, side: Side) => keys.reduce((acc, k) => acc.split(k[side].slice(9)).join(k.template.slice(9)), text);

  const answerOf = async (side: Side, given: ParityRequest) => {
    const sent: ParityRequest = {
      ...given,
      url: toWire(given.url, side),
      headers: Object.fromEntries(Object.entries(given.headers).map(([k, v]) => [k, toWire(v, side)])),
      ...(given.body === undefined ? {} : { body: toWire(given.body, side) }),
    };
    const raw = await send((side === 'executor' ? executor : yoga).origin, sent);
    return { raw, normal: normalised(raw, (text) => fromWire(text, side)) };
  };

  return {
    executor,
    yoga,
    async key(plan, used = 0) {
      const twins = { executor: await executor.createAccountKey(plan), yoga: await executor.createAccountKey(plan) };
      for (const twin of Object.values(twins))
        if (used > 0) await executor.store.consumeQuota(twin.account.id, currentMonth(NOW), Number.MAX_SAFE_INTEGER, used);
      const template = `msr_test_${`T${keys.length}${plan}`.padEnd(twins.executor.key.length - 9, 'x')}`;
      keys.push({ template, executor: twins.executor.key, yoga: twins.yoga.key });
      return template;
    },
    async expectSameAnswer(given) {
      // One after the other: both apps answer on this process's event loop, where side by side only adds waiting.
      const mine = await answerOf('executor', given);
      const reference = await answerOf('yoga', given);
      const label = `${given.method} ${given.url.slice(0, 200)} ${JSON.stringify(given.headers)} ${given.body?.slice(0, 300) ?? ''}`;
      expect(mine.normal, label).toEqual(reference.normal);
      return mine.raw;
    },
    async close() {
      await yoga.close();
      await executor.close();
      await database?.drop();
    },
  };
}

/** One request on a connection of its own, its target and headers exactly as given. */
function send(origin: string, given: ParityRequest): Promise<RawAnswer> {
  const { hostname, port } = new URL(origin);
  const headers: Record<string, string> = { ...given.headers };
  if (given.chunked) headers['transfer-encoding'] = 'chunked';
  else if (given.body !== undefined) headers['content-length'] = String(Buffer.byteLength(given.body));
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, method: given.method, path: '/', agent: false, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const answerHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers))
          for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) answerHeaders.append(name, one);
        const bytes = Buffer.concat(chunks);
        resolve({ status: res.statusCode!, headers: answerHeaders, text: bytes.toString('utf8'), bytes });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    // The request line is written from `path` on the first write: set past the client's check, Latin-1 bytes reach the server as they are.
    req.path = given.url;
    if (given.chunked && given.body !== undefined) {
      // Two chunks, as a streaming client sends them.
      const half = Math.floor(given.body.length / 2);
      req.write(given.body.slice(0, half));
      req.end(given.body.slice(half));
    } else req.end(given.body);
  });
}

function normalised(answer: RawAnswer, keysBack: (text: string) => string) {
  // The rate-limit windows start at each app's first request and end on the wall clock: what remains in them (r=) and when they reset (t=) depend on timing.
  const timing = (value: string) => value.replace(/;t=\d+$/, ';t=…').replace(/;r=\d+/, ';r=…');
  const headers = Object.fromEntries(
    [...answer.headers]
      .filter(([name]) => !IGNORED_HEADERS.has(name))
      .map(([name, value]) => [name, name === 'ratelimit' ? timing(value) : keysBack(value)]),
  );
  const body = keysBack(answer.text)
    .replace(/"requestId":"[0-9a-f-]{36}"/g, '"requestId":"…"')
    .replace(/key_[A-Za-z0-9]+/g, 'key_…')
    .replace(/signature=[A-Za-z0-9_-]{43}/g, 'signature=…')
    .replace(/("rateLimit":\{[^}]*"remaining":)\d+/g, '$1"…"')
    .replace(/("rateLimit":\{[^}]*"resetSeconds":)\d+/g, '$1"…"');
  return { status: answer.status, headers, body };
}
