import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { expect } from 'vitest';
import { configWarnings, loadConfig } from '../../src/config';
import { migrateDatabase } from '../../src/data/open-store';
import type { PlanId } from '../../src/domain/plans';
import { currentMonth } from '../../src/domain/quota';
import { createTestApp, type TestApp } from './app';
import type { RawAnswer } from './http';
import { freshDatabase, type FreshDatabase } from './postgres';
import { MADE_UP_PUBLICATIONS, tableRates } from './table-rates';

/**
 * GraphQL's reference answers: the answers of graphql-yoga 5.24.1's own handler with this project's
 * plugins, recorded once in test/fixtures/graphql-reference-answers.json (its `recordedFrom` names the
 * commit), which the front must give byte for byte: status, headers (but the request id, the date and
 * the connection's), body (but the request id, key ids, signatures and the rate-limit counters, which
 * depend on timing). Every suite sends its requests in a fixed order to a fresh app (made-up rates, a
 * fixed clock, a fresh SQLite or PostgreSQL database), so the quota each answer reports is the same
 * at every run. Keys are written as templates (`key('business')`) and swapped for real keys of that
 * plan on the wire, and back in the answers.
 *
 * UPDATE_GRAPHQL_REFERENCE=1 records the answers in place of comparing them, from an app with
 * GRAPHQL_EXECUTION=yoga (Yoga's handler with the plugins). That exists only up to the commit the
 * fixture's header names: to record further requests, run this helper and the suites there and
 * bring the fixture back. Where the variable is no longer read, recording refuses to start.
 */
export interface ReferenceRequest {
  method: string;
  /** The request target, sent exactly as written (non-ASCII characters as their Latin-1 bytes). */
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** Sent with Transfer-Encoding: chunked instead of a Content-Length. */
  chunked?: boolean;
}

export interface ReferenceFront {
  app: TestApp;
  /** A key template for a fresh account of this plan (with `used` conversions of its quota spent). */
  key(plan: PlanId, used?: number): Promise<string>;
  /** Sends the request and holds its answer to the next one recorded for `section`; the answer as received. */
  expectReference(section: string, request: ReferenceRequest): Promise<RawAnswer>;
  /** Every answer recorded for `section` was asked for. */
  expectSectionDone(section: string): void;
  close(): Promise<void>;
}

const FIXTURE = path.join(__dirname, '../fixtures/graphql-reference-answers.json');
const NOW = new Date('2024-04-03T12:00:00Z');
const LIMITS = { KEY_RATE_LIMIT: '1000000', PUBLIC_RATE_LIMIT: '1000000' };
const IGNORED_HEADERS = new Set(['date', 'x-request-id', 'connection', 'keep-alive']);
const RECORDING = process.env['UPDATE_GRAPHQL_REFERENCE'] === '1';
/**
 * UPDATE_GRAPHQL_REFERENCE_REQUESTS=1 writes into the fixture the answers that differ from the
 * recorded ones only by `extensions.cost.requests` (the document's price, which Yoga's handler did
 * not report) and the lengths and ETags that member changes (and the If-None-Match of a request that
 * sends such an ETag back); any other difference still fails.
 */
const ADDING_REQUESTS = process.env['UPDATE_GRAPHQL_REFERENCE_REQUESTS'] === '1';
const withoutRequests = (answer: NormalAnswer) =>
  JSON.stringify({
    ...answer,
    headers: { ...answer.headers, 'content-length': '', ...(answer.headers['etag'] ? { etag: '' } : {}) },
    body: answer.body.replace(/,"requests":\d+/g, '').replace(/Content-Length: \d+/g, 'Content-Length: '),
  });
let addedRequests = false;

interface NormalAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}
interface Entry {
  request: string;
  answer: NormalAnswer;
}
interface Fixture {
  recordedFrom: string;
  sections: Record<string, Entry[]>;
}

export async function createReferenceFront(backend: 'sqlite' | 'postgres' = 'sqlite'): Promise<ReferenceFront> {
  if (RECORDING && configWarnings({ GRAPHQL_EXECUTION: 'yoga' }).length > 0) {
    throw new Error(
      `GRAPHQL_EXECUTION=yoga is not read at this commit: record the reference answers at the commit of ${FIXTURE}'s header.`,
    );
  }
  const env: Record<string, string> = { ...LIMITS, ...(RECORDING ? { GRAPHQL_EXECUTION: 'yoga' } : {}) };
  let database: FreshDatabase | undefined;
  if (backend === 'postgres') {
    database = await freshDatabase();
    env['DATABASE_URL'] = database.url;
    await migrateDatabase(loadConfig(env));
  }
  const app = await createTestApp(env, { rates: tableRates(MADE_UP_PUBLICATIONS), clock: () => NOW });
  const fixture = loadedFixture();
  /** The sections this app records (each section is recorded by the first app of the run that sends it; later ones compare with it). */
  const recorded = new Set<string>();
  const cursors = new Map<string, number>();
  const keys: Array<[template: string, real: string]> = [];

  const swap = (text: string, from: 0 | 1) =>
    keys.reduce((acc, pair) => acc.split(pair[from].slice(9)).join(pair[1 - from]!.slice(9)), text);

  return {
    app,
    async key(plan, used = 0) {
      const { key, account } = await app.createAccountKey(plan);
      if (used > 0) await app.store.consumeQuota(account.id, currentMonth(NOW), Number.MAX_SAFE_INTEGER, used);
      const template = `msr_test_${`T${keys.length}${plan}`.padEnd(key.length - 9, 'x')}`;
      keys.push([template, key]);
      return template;
    },
    async expectReference(section, given) {
      const sent: ReferenceRequest = {
        ...given,
        url: swap(given.url, 0),
        headers: Object.fromEntries(Object.entries(given.headers).map(([k, v]) => [k, swap(v, 0)])),
        ...(given.body === undefined ? {} : { body: swap(given.body, 0) }),
      };
      const raw = await send(app.origin, sent);
      const answer = normalised(raw, (text) => swap(text, 1));
      const fingerprint = fingerprintOf(given);
      const index = cursors.get(section) ?? 0;
      cursors.set(section, index + 1);
      if (RECORDING && index === 0 && !recordedThisRun.has(section)) {
        recordedThisRun.add(section);
        recorded.add(section);
        fixture.sections[section] = [];
      }
      if (recorded.has(section)) {
        fixture.sections[section]!.push({ request: fingerprint, answer });
        return raw;
      }
      const entry = fixture.sections[section]?.[index];
      const label = `${section} #${index}: ${given.method} ${given.url.slice(0, 200)} ${JSON.stringify(given.headers)} ${given.body?.slice(0, 300) ?? ''}`;
      // A conditional GET names the ETag of an answer that now holds the member: the same request otherwise.
      const sameButEtag = (recorded: string | undefined) =>
        given.headers['if-none-match'] !== undefined &&
        recorded?.slice(0, recorded.lastIndexOf(' ')) === fingerprint.slice(0, fingerprint.lastIndexOf(' '));
      if (ADDING_REQUESTS && entry && entry.request !== fingerprint && sameButEtag(entry.request)) entry.request = fingerprint;
      expect(entry?.request, `${label}: the request recorded at this place`).toBe(fingerprint);
      if (ADDING_REQUESTS && withoutRequests(answer) === withoutRequests(entry!.answer)) {
        addedRequests ||= JSON.stringify(answer) !== JSON.stringify(entry!.answer);
        entry!.answer = answer;
      }
      expect(answer, label).toEqual(entry!.answer);
      return raw;
    },
    expectSectionDone(section) {
      expect(cursors.get(section) ?? 0, `${section}: answers asked for`).toBe(fixture.sections[section]?.length ?? 0);
    },
    async close() {
      if (RECORDING && recorded.size > 0) {
        const commit = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
        const current = existsSync(FIXTURE) ? (JSON.parse(readFileSync(FIXTURE, 'utf8')) as Fixture) : { recordedFrom: '', sections: {} };
        const merged = { ...current.sections, ...fixture.sections };
        const sections = Object.fromEntries(
          Object.keys(merged)
            .sort()
            .map((name) => [name, merged[name]!]),
        );
        const recordedFrom = `graphql-yoga 5.24.1's handler with this project's plugins (GRAPHQL_EXECUTION=yoga) at commit ${commit}`;
        writeFileSync(FIXTURE, `${JSON.stringify({ recordedFrom, sections }, null, 1)}\n`);
      }
      if (addedRequests) {
        const current = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Fixture;
        for (const section of cursors.keys()) current.sections[section] = fixture.sections[section]!;
        writeFileSync(FIXTURE, `${JSON.stringify(current, null, 1)}\n`);
      }
      await app.close();
      await database?.drop();
    },
  };
}

let fixtureRead: Fixture | undefined;
const recordedThisRun = new Set<string>();

function loadedFixture(): Fixture {
  fixtureRead ??= existsSync(FIXTURE) ? (JSON.parse(readFileSync(FIXTURE, 'utf8')) as Fixture) : { recordedFrom: '', sections: {} };
  return fixtureRead;
}

/** What identifies a request in the fixture: its method, its target's start, and a hash of all of it. */
function fingerprintOf(request: ReferenceRequest): string {
  const hash = createHash('sha256')
    .update(JSON.stringify([request.method, request.url, request.headers, request.body ?? null, request.chunked ?? false]))
    .digest('base64url')
    .slice(0, 16);
  return `${request.method} ${request.url.slice(0, 80)} ${hash}`;
}

/** One request on a connection of its own, its target and headers exactly as given. */
function send(origin: string, given: ReferenceRequest): Promise<RawAnswer> {
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

function normalised(answer: RawAnswer, keysBack: (text: string) => string): NormalAnswer {
  // The rate-limit windows start at the app's first request and end on the wall clock: what remains in them (r=) and when they reset (t=) depend on timing.
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
    .replace(/("rateLimit":\{[^}]*"remaining":)\d+/, '$1"…"')
    .replace(/("rateLimit":\{[^}]*"resetSeconds":)\d+/, '$1"…"');
  return { status: answer.status, headers, body };
}
