import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { migrateDatabase } from '../../src/data/open-store';
import { createTestApp, type TestApp } from '../helpers/app';
import { freshDatabase, postgresTitle, TEST_DATABASE_URL, type FreshDatabase } from '../helpers/postgres';
import { tcpProxy, type TcpProxy } from '../helpers/tcp-proxy';

/**
 * PostgreSQL going away while the server serves, through a TCP proxy the test stops and starts (the
 * real server is never stopped): keyed routes answer 503 SERVICE_UNAVAILABLE with Retry-After and
 * the contract's body under both REST executions and in GraphQL, the public routes keep answering, and the
 * next requests after the proxy is back succeed with no restart.
 */
describe.skipIf(!TEST_DATABASE_URL)(postgresTitle('PostgreSQL unreachable while serving'), () => {
  let database: FreshDatabase;
  let proxy: TcpProxy;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    database = await freshDatabase();
    proxy = await tcpProxy(database.url);
    await migrateDatabase(loadConfig({ DATABASE_URL: database.url }));
  });
  afterAll(async () => {
    for (const app of apps.splice(0)) await app.close();
    await proxy?.close();
    await database?.drop();
  });

  const viaProxy = () => proxy.url;

  for (const execution of ['direct', 'sofa'] as const) {
    it(`REST_EXECUTION=${execution}: 503 with Retry-After for keyed routes, public routes unaffected, recovery by itself`, async () => {
      const app = await createTestApp({ DATABASE_URL: viaProxy(), REST_EXECUTION: execution });
      apps.push(app);
      const key = await app.createKey('developer');
      const convert = () => app.call('GET', '/v1/convert?value=1&from=mile&to=km', { key });
      const batch = () => app.call('POST', '/v1/batch', { key, body: { items: [{ value: '1', from: 'm', to: 'ft' }] } });
      const graphql = () => app.postGraphQL('{ convert(value: "1", from: "mile", to: "km") { result { value } } }', { key });
      expect((await convert()).status).toBe(200);

      await proxy.stop();
      try {
        for (const answer of [await convert(), await batch(), await convert()]) {
          expect(answer.status).toBe(503);
          expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
          expect(answer.body).toEqual({
            error: {
              code: 'SERVICE_UNAVAILABLE',
              message: expect.stringContaining('database'),
              status: 503,
              requestId: expect.any(String),
            },
          });
        }
        const gql = await graphql();
        expect(gql.body.errors?.[0]?.extensions).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
        expect(JSON.stringify(gql.body)).not.toContain('INTERNAL');
        expect((await app.call('GET', '/v1/categories')).status).toBe(200);
        expect((await app.call('GET', '/v1/units/ft')).status).toBe(200);
        const health = await app.call('GET', '/v1/health');
        expect(health.status).toBe(200);
        expect(health.body.data).toMatchObject({ status: 'degraded', database: { kind: 'postgres', reachable: false } });
      } finally {
        await proxy.start();
      }
      // Health probes the database in the background while it reports it unreachable: it recovers without keyed traffic.
      let database: unknown;
      for (let i = 0; i < 200; i++) {
        database = (await app.call('GET', '/v1/health')).body.data.database;
        if ((database as { reachable: boolean }).reachable) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      expect(database).toEqual({ kind: 'postgres', reachable: true });

      expect((await convert()).status).toBe(200);
      expect((await batch()).status).toBe(200);
      expect((await graphql()).body).toEqual({ data: { convert: { result: { value: '1.609344' } } }, extensions: expect.anything() });
    });
  }

  it('a database that accepts connections but never answers: 503 once the connect timeout (5 s) passes, then recovery', async () => {
    const app = await createTestApp({ DATABASE_URL: viaProxy() });
    apps.push(app);
    const key = await app.createKey('free');
    const convert = () => app.call('GET', '/v1/convert?value=1&from=mile&to=km', { key });
    expect((await convert()).status).toBe(200);
    proxy.hang();
    try {
      const answer = await convert();
      expect(answer.status).toBe(503);
      expect(answer.body.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      proxy.resume();
    }
    expect((await convert()).status).toBe(200);
  });
});
