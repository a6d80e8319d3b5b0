import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pathFor, ROUTES } from '../../src/http/routes';
import { createTestApp, type TestApp } from '../helpers/app';
import { MADE_UP_PUBLICATIONS, tableRates } from '../helpers/table-rates';

/**
 * CORS from the route table: every public route (and GraphQL) answers any origin with the literal
 * star and no credentials, errors and preflights included; no preflight allows Authorization; keyed
 * routes answer no origin at all.
 */
let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp({}, { rates: tableRates(MADE_UP_PUBLICATIONS), clock: () => new Date('2024-04-03T12:00:00Z') });
  key = await t.createKey('developer');
});
afterAll(() => t.close());

const ORIGIN = 'https://page.example';
const PARAMS = { category: 'length', unit: 'ft', code: 'USD' };
const PUBLIC = ROUTES.filter((route) => route.access === 'public');
const KEYED = ROUTES.filter((route) => route.access === 'key');

const preflight = (target: string, method: string, headers = 'if-none-match') =>
  t.fetch(target, {
    method: 'OPTIONS',
    headers: { origin: ORIGIN, 'access-control-request-method': method, 'access-control-request-headers': headers },
  });

function expectShared(res: Response, label: string) {
  expect(res.headers.get('access-control-allow-origin'), label).toBe('*');
  expect(res.headers.get('access-control-allow-credentials'), label).toBeNull();
}

describe('CORS on the public routes', () => {
  it('is what the table says: every public route is shared, no keyed one', () => {
    expect(PUBLIC.map((route) => route.path)).toEqual(
      expect.arrayContaining(['/v1/units', '/v1/categories', '/v1/currencies', '/v1/currency/rates/latest', '/v1/health', '/openapi.json']),
    );
    for (const route of ROUTES) expect(route.shared, route.path).toBe(route.access === 'public');
  });

  it('sends the literal star without credentials on every public answer, a success and an error', async () => {
    for (const route of PUBLIC) {
      const target = pathFor(route, PARAMS);
      const ok = await t.fetch(target, { headers: { origin: ORIGIN } });
      expect(ok.status, target).toBe(200);
      expectShared(ok, target);
      const refused = await t.fetch(
        route.path.includes(':') ? pathFor(route, { category: 'x', unit: 'x', code: 'XXX' }) : `${target}?nothing=1`,
        {
          headers: { origin: ORIGIN },
        },
      );
      expect(refused.status, target).toBeGreaterThanOrEqual(400);
      expectShared(refused, `${target} refused`);
    }
  });

  it('answers a preflight on every public route, allowing no Authorization', async () => {
    for (const route of PUBLIC) {
      const target = pathFor(route, PARAMS);
      const res = await preflight(target, 'GET');
      expect(res.status, target).toBe(204);
      expectShared(res, target);
      expect(res.headers.get('access-control-allow-methods'), target).toBe('GET, HEAD');
      expect(res.headers.get('access-control-allow-headers')!.toLowerCase(), target).not.toContain('authorization');
    }
  });

  it('sends no CORS field on keyed routes, and refuses their preflight', async () => {
    for (const route of KEYED) {
      const target = pathFor(route, PARAMS);
      const res = await t.fetch(target, { method: route.method, headers: { origin: ORIGIN, authorization: `Bearer ${key}` } });
      expect(res.headers.get('access-control-allow-origin'), target).toBeNull();
      const asked = await preflight(target, route.method, 'authorization');
      expect(asked.status, target).toBe(405);
      expect(asked.headers.get('access-control-allow-origin'), target).toBeNull();
    }
  });
});

describe('CORS on GraphQL', () => {
  it('answers a POST without a key to any origin, and its error too', async () => {
    for (const query of ['{ units(category: "length") { id } }', '{ nothing }']) {
      const res = await t.fetch('/graphql', {
        method: 'POST',
        headers: { origin: ORIGIN, 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
      expectShared(res, query);
    }
  });

  it('answers a GET without a key to any origin', async () => {
    const res = await t.fetch(`/graphql?query=${encodeURIComponent('{ currencies { code } }')}`, { headers: { origin: ORIGIN } });
    expect(res.status).toBe(200);
    expectShared(res, 'GET');
  });

  it('allows a JSON POST in its preflight, never Authorization', async () => {
    const res = await preflight('/graphql', 'POST', 'content-type');
    expect(res.status).toBe(204);
    expectShared(res, 'preflight');
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST');
    const allowed = res.headers.get('access-control-allow-headers')!.toLowerCase().split(/,\s*/);
    expect(allowed).toContain('content-type');
    expect(allowed).not.toContain('authorization');
  });
});
