import { expect } from 'vitest';
import { loadConfig } from '../../src/config';
import { migrateDatabase } from '../../src/data/open-store';
import { currentMonth } from '../../src/domain/quota';
import type { PlanId } from '../../src/domain/plans';
import { createTestApp, type TestApp } from './app';
import { rawRequest, type RawAnswer } from './http';
import { freshDatabase, type FreshDatabase } from './postgres';
import { MADE_UP_PUBLICATIONS, tableRates } from './table-rates';

/**
 * Two apps on one store, rates and clock, each behind the node:http front main.ts runs, on a
 * loopback port: `direct` (REST routes executed directly) and `reference` (REST_EXECUTION=sofa:
 * SOFA through Yoga). The REST parity suites send every request to both, with the keys of twin accounts, and require the same status, headers (but the request id
 * and the date) and body (but the request id). On SQLite, or on a fresh PostgreSQL database.
 */
export interface TwinApps {
  direct: TestApp;
  reference: TestApp;
  origins: { direct: string; reference: string };
  /** Keys of twin accounts, one per app, with the same plan and usage. */
  twinKeys(plan: PlanId, used?: number): Promise<{ direct: string; reference: string }>;
  /** Sends one request to both apps (each template key swapped for that app's twin) and compares the answers. */
  expectSameAnswer(request: TwinRequest, keys: TwinKeys): Promise<void>;
  /** The same, returning the direct app's answer for further checks. */
  sameAnswer(request: TwinRequest, keys: TwinKeys): Promise<RawAnswer>;
  close(): Promise<void>;
}

export interface TwinRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  rawBody?: string;
}

/** The keys a request was written with (the direct app's twins) and each app's twin, in the same order. */
export interface TwinKeys {
  template: string[];
  direct: string[];
  reference: string[];
}

export const NO_KEYS: TwinKeys = { template: [], direct: [], reference: [] };

const NOW = new Date('2024-04-03T12:00:00Z');
const LIMITS = { KEY_RATE_LIMIT: '1000000', PUBLIC_RATE_LIMIT: '1000000' };
const IGNORED_HEADERS = new Set(['date', 'x-request-id', 'connection', 'keep-alive']);

export async function createTwinApps(backend: 'sqlite' | 'postgres'): Promise<TwinApps> {
  const rates = tableRates(MADE_UP_PUBLICATIONS);
  const env: Record<string, string> = { ...LIMITS };
  let database: FreshDatabase | undefined;
  if (backend === 'postgres') {
    database = await freshDatabase();
    env['DATABASE_URL'] = database.url;
    await migrateDatabase(loadConfig(env));
  }
  const direct = await createTestApp(env, { rates, clock: () => NOW });
  const reference = await createTestApp({ ...env, REST_EXECUTION: 'sofa' }, { rates, clock: () => NOW, store: direct.store });
  const origins = { direct: direct.origin, reference: reference.origin };

  const twinKeys = async (plan: PlanId, used = 0) => {
    const twins = { direct: await direct.createAccountKey(plan), reference: await direct.createAccountKey(plan) };
    if (used > 0)
      for (const twin of Object.values(twins))
        await direct.store.consumeQuota(twin.account.id, currentMonth(NOW), Number.MAX_SAFE_INTEGER, used);
    return { direct: twins.direct.key, reference: twins.reference.key };
  };

  const sameAnswer = async (request: TwinRequest, keys: TwinKeys) => {
    const forApp = (app: 'direct' | 'reference') => {
      const swap = (text: string) =>
        keys.template.reduce((acc, template, i) => acc.split(template.slice(9)).join(keys[app][i]!.slice(9)), text);
      const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, swap(v)]));
      return rawRequest(
        origins[app],
        request.method,
        request.url,
        headers,
        request.rawBody === undefined ? undefined : swap(request.rawBody),
      );
    };
    const [a, b] = [await forApp('direct'), await forApp('reference')];
    expect(
      normalised(a),
      `${request.method} ${request.url} ${JSON.stringify(request.headers)} ${request.rawBody?.slice(0, 300) ?? ''}`,
    ).toEqual(normalised(b));
    return a;
  };
  const expectSameAnswer = async (request: TwinRequest, keys: TwinKeys) => {
    await sameAnswer(request, keys);
  };

  return {
    direct,
    reference,
    origins,
    twinKeys,
    expectSameAnswer,
    sameAnswer,
    async close() {
      await reference.close();
      await direct.close();
      await database?.drop();
    },
  };
}

function normalised(answer: RawAnswer) {
  // Each app's rate-limit windows started at its own first request: their resets (t=) may differ by a
  // second, and the per-key window is one second long, so what remains in it (r=) depends on timing.
  const timing = (value: string) => value.replace(/;t=\d+$/, ';t=…').replace(/^"per-key";r=\d+/, '"per-key";r=…');
  const headers = Object.fromEntries(
    [...answer.headers]
      .filter(([name]) => !IGNORED_HEADERS.has(name))
      .map(([name, value]) => [name, name === 'ratelimit' ? timing(value) : value]),
  );
  // The same two figures again in a GraphQL answer's rateLimit extension. A signed link names its
  // twin key's id and is signed with it: the rest of the link (its terms, its expiry) must agree. A
  // link is made on the origin its request came to, each twin's own loopback port.
  const body = answer.text
    .replace(/http:\/\/127\.0\.0\.1:\d+\//g, 'http://127.0.0.1:…/')
    .replace(/"requestId":"[0-9a-f-]{36}"/g, '"requestId":"…"')
    .replace(/key_[A-Za-z0-9]+/g, 'key_…')
    .replace(/signature=[A-Za-z0-9_-]{43}/g, 'signature=…')
    .replace(/("rateLimit":\{"policy":"per-key",[^}]*"remaining":)\d+/, '$1"…"')
    .replace(/("rateLimit":\{[^}]*"resetSeconds":)\d+/, '$1"…"');
  return { status: answer.status, headers, body };
}
