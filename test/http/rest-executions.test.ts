import type { IncomingMessage, ServerResponse } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/http/routes';
import { createTestApp, type TestApp } from '../helpers/app';
import { frontListenerOf, rawRequest } from '../helpers/http';
import { pathOf } from '../../src/http/front/target';
import { createTwinApps, NO_KEYS, type TwinApps } from '../helpers/twin-apps';
import { postgresTitle, TEST_DATABASE_URL } from '../helpers/postgres';
import { requestOf } from '../hostile/rest-requests';

/**
 * The direct execution (REST_EXECUTION=direct) and SOFA through Yoga (sofa) must answer every REST request alike:
 * same status, same headers (but the request id and the date), same body (but the request id). Both
 * apps share one store, rates and clock; each request is sent to both with keys of twin accounts.
 * Once on SQLite and once on PostgreSQL (TEST_DATABASE_URL).
 */
for (const backend of ['sqlite', 'postgres'] as const) {
  const title = backend === 'sqlite' ? 'REST executions on SQLite' : postgresTitle('REST executions on PostgreSQL');
  describe.skipIf(backend === 'postgres' && !TEST_DATABASE_URL)(title, () => {
    let twins: TwinApps;
    let direct: TestApp;
    let origins: TwinApps['origins'];
    beforeAll(async () => {
      twins = await createTwinApps(backend);
      ({ direct, origins } = twins);
    });
    afterAll(() => twins?.close());
    const twinKeys: TwinApps['twinKeys'] = (plan, used) => twins.twinKeys(plan, used);
    const expectSameAnswer: TwinApps['expectSameAnswer'] = (request, keys) => twins.expectSameAnswer(request, keys);

    describe("which requests the edge takes (every one but Yoga's and /metrics)", () => {
      // Its own app: requests the edge takes spend rate limit, which the parity checks below compare.
      let probe: TestApp;
      beforeAll(async () => {
        probe = await createTestApp();
      });
      afterAll(() => probe.close());

      const owns = (_method: string, url: string) => frontListenerOf(probe.app).handlerOf(pathOf(url)) === probe.app.front.edge;

      it.each<[string, string, boolean]>([
        ...ROUTES.filter((r) => r.field !== undefined).map((r): [string, string, boolean] => [
          r.method,
          r.path.replace(/:(id|unit)$/, 'meter').replace(':category', 'length'),
          true,
        ]),
        ['GET', '/v1/convert?value=1&from=m&to=ft', true],
        ['GET', '/graphql', false],
        ['POST', '/graphql', false],
        ['GET', '/graphql/assets/nope.js', false],
        ['GET', '/account', false],
        ['POST', '/account/keys', false],
        ['GET', '/metrics', false],
        ['GET', '/openapi.json', true],
        ['GET', '/v1/nope', true],
        ['GET', '/graphql/nope', true],
        ['DELETE', '/v1/convert', true],
        ['HEAD', '/v1/units', true],
        ['HEAD', '/v1/convert?value=1&from=m&to=ft', true],
        ['HEAD', '/v1/batch', true],
        ['OPTIONS', '/v1/currency/rates/latest', true],
        ['GET', '/v1/units/../categories', true],
        ['GET', '/v1/units/%2e%2e', true],
        ['GET', '/v1/units/../../account', false],
        ['GET', 'http://localhost/v1/units', true],
      ])('%s %s: %s', (method, url, expected) => {
        expect(owns(method, url)).toBe(expected);
      });
    });

    describe('the direct execution answers exactly as SOFA does', () => {
      it('for the documented requests of every route', async () => {
        const [dev, free, spent] = [await twinKeys('developer'), await twinKeys('free'), await twinKeys('free', 1000)];
        const keys = {
          template: [dev.direct, free.direct, spent.direct],
          direct: [dev.direct, free.direct, spent.direct],
          reference: [dev.reference, free.reference, spent.reference],
        };
        const json = { 'content-type': 'application/json' };
        const auth = (key: string) => ({ authorization: `Bearer ${key}` });
        const cases = [
          { method: 'GET', url: '/v1/categories', headers: {} },
          { method: 'GET', url: '/v1/categories/LENGTH', headers: {} },
          { method: 'GET', url: '/v1/categories/nope', headers: {} },
          { method: 'GET', url: '/v1/units', headers: {} },
          { method: 'GET', url: '/v1/units?category=temperature', headers: {} },
          { method: 'GET', url: '/v1/units?category=nope', headers: {} },
          { method: 'GET', url: '/v1/units/ft', headers: {} },
          { method: 'GET', url: '/v1/units/%C2%B5m', headers: {} },
          { method: 'GET', url: '/v1/units/nope', headers: {} },
          { method: 'GET', url: '/v1/health', headers: {} },
          { method: 'GET', url: '/v1/currency/rates/latest', headers: {} },
          { method: 'GET', url: '/v1/currency/rates/latest?date=2024-03-28', headers: {} },
          { method: 'GET', url: '/v1/convert?value=12.5&from=inch&to=centimeter', headers: auth(dev.direct) },
          { method: 'GET', url: '/v1/convert?value=1&from=m&to=ft&decimals=3&rounding=HALF_EVEN', headers: auth(free.direct) },
          { method: 'GET', url: '/v1/convert?value=1&from=m&to=kg', headers: auth(free.direct) },
          { method: 'GET', url: '/v1/convert?value=1&from=m&to=ft', headers: auth(spent.direct) },
          { method: 'GET', url: '/v1/convert?value=1&from=m&to=ft', headers: {} },
          { method: 'GET', url: '/v1/convert?value=1&from=m&to=ft&key=x', headers: auth(free.direct) },
          {
            method: 'POST',
            url: '/v1/convert',
            headers: { ...auth(free.direct), ...json },
            rawBody: '{"value":"-40","from":"celsius","to":"fahrenheit"}',
          },
          {
            method: 'POST',
            url: '/v1/convert',
            headers: { ...auth(free.direct), ...json },
            rawBody: '{"value":40,"from":"celsius","to":"fahrenheit"}',
          },
          { method: 'POST', url: '/v1/convert', headers: { ...auth(free.direct) }, rawBody: '{"value":"1","from":"m","to":"ft"}' },
          { method: 'POST', url: '/v1/convert', headers: { ...auth(free.direct), ...json }, rawBody: '{"value":"1",' },
          {
            method: 'POST',
            url: '/v1/batch',
            headers: { ...auth(dev.direct), ...json },
            rawBody: JSON.stringify({
              items: [
                { value: '1', from: 'm', to: 'ft' },
                { value: '1', from: 'm', to: 'kg' },
                { value: '5', from: 'usd', to: 'gbp', date: '2024-03-28' },
              ],
            }),
          },
          {
            method: 'POST',
            url: '/v1/batch',
            headers: { ...auth(free.direct), ...json },
            rawBody: JSON.stringify({
              items: [
                { value: '5', from: 'usd', to: 'gbp', date: '2024-03-28' },
                { value: '1', from: 'mile', to: 'km', rounding: 'UP', decimals: 1 },
              ],
            }),
          },
          {
            method: 'POST',
            url: '/v1/batch',
            headers: { ...auth(spent.direct), ...json },
            rawBody: JSON.stringify({ items: [{ value: '1', from: 'm', to: 'ft' }] }),
          },
          { method: 'POST', url: '/v1/batch', headers: { ...auth(dev.direct), ...json }, rawBody: JSON.stringify({ items: [] }) },
          {
            method: 'POST',
            url: '/v1/batch',
            headers: { ...auth(dev.direct), ...json },
            rawBody: JSON.stringify({ items: Array.from({ length: 1001 }, () => ({ value: '1', from: 'm', to: 'ft' })) }),
          },
          {
            method: 'POST',
            url: '/v1/currency/convert',
            headers: { ...auth(dev.direct), ...json },
            rawBody: '{"value":"100","from":"usd","to":"jpy","decimals":0,"date":"2024-03-30"}',
          },
          {
            method: 'POST',
            url: '/v1/currency/convert',
            headers: { ...auth(free.direct), ...json },
            rawBody: '{"value":"100","from":"usd","to":"jpy","date":"2024-03-30"}',
          },
          {
            method: 'POST',
            url: '/v1/currency/convert',
            headers: { ...auth(free.direct), ...json },
            rawBody: '{"value":"100","from":"usd","to":"xyz"}',
          },
          { method: 'GET', url: '/v1/currency/rates?symbols=USD,GBP', headers: auth(free.direct) },
          { method: 'GET', url: '/v1/currency/rates?date=1998-01-01', headers: auth(dev.direct) },
          // Any base, an amount, rounding; symbols a comma list (SOFA alone would read it as one code).
          {
            method: 'GET',
            url: '/v1/currency/rates?base=usd&symbols=JPY,%20eur,USD&amount=100&decimals=2&rounding=HALF_EVEN',
            headers: auth(free.direct),
          },
          { method: 'GET', url: '/v1/currency/rates?base=JPY&date=2024-03-30', headers: auth(dev.direct) },
          { method: 'GET', url: `/v1/currency/rates?symbols=${'USD,'.repeat(30)}JPY`, headers: auth(free.direct) },
          { method: 'GET', url: '/v1/currency/rates?symbols=USD,,JPY', headers: auth(free.direct) },
          { method: 'GET', url: '/v1/currency/rates?base=dollars', headers: auth(free.direct) },
          { method: 'GET', url: '/v1/currency/rates?base=XYZ', headers: auth(free.direct) },
          { method: 'GET', url: '/v1/currency/rates?base=RUB&date=2024-03-28', headers: auth(dev.direct) },
          { method: 'GET', url: '/v1/currency/rates?amount=1e3', headers: auth(free.direct) },
          { method: 'GET', url: '/v1/currencies', headers: {} },
          { method: 'GET', url: '/v1/currencies?x=1', headers: {} },
          { method: 'GET', url: '/v1/currencies/hrk', headers: {} },
          { method: 'GET', url: '/v1/currencies/XYZ', headers: {} },
          { method: 'GET', url: '/v1/currencies/dollars', headers: {} },
        ];
        for (const request of cases) await expectSameAnswer(request, keys);
      });

      it('for unit expressions, with currencies and dates, and their refusals', async () => {
        const [dev, free] = [await twinKeys('developer'), await twinKeys('free')];
        const keys = { template: [dev.direct, free.direct], direct: [dev.direct, free.direct], reference: [dev.reference, free.reference] };
        const json = { 'content-type': 'application/json' };
        const auth = (key: string) => ({ authorization: `Bearer ${key}` });
        const get = (key: string, query: Record<string, string>) => ({
          method: 'GET',
          url: `/v1/convert?${new URLSearchParams(query).toString()}`,
          headers: auth(key),
        });
        const post = (key: string, url: string, body: unknown) => ({
          method: 'POST',
          url,
          headers: { ...auth(key), ...json },
          rawBody: JSON.stringify(body),
        });
        const cases = [
          [get(dev.direct, { value: '9.80665', from: 'm/s²', to: 'ft/s^2' }), 200],
          [get(free.direct, { value: '9.80665', from: 'm/s²', to: 'ft/s^2', decimals: '2', rounding: 'DOWN' }), 200],
          [get(dev.direct, { value: '0.25', from: 'EUR/kWh', to: 'USD/MWh', date: '2024-03-30' }), 200],
          [get(dev.direct, { value: '0.25', from: 'EUR/kWh', to: 'USD/MWh' }), 200],
          [get(free.direct, { value: '0.25', from: 'EUR/kWh', to: 'USD/MWh', date: '2024-03-30' }), 403],
          [get(free.direct, { value: '1', from: 'm/s', to: 'kg' }), 400],
          [get(free.direct, { value: '1', from: 'kilometr/h', to: 'm/s' }), 400],
          [get(free.direct, { value: '1', from: 'm^99999', to: 'm^2' }), 400],
          [get(free.direct, { value: '1', from: '°C/min', to: 'K/s' }), 400],
          [get(free.direct, { value: '1', from: 'km', to: 'm', date: '2024-03-28' }), 200],
          [get(free.direct, { value: '1', from: 'km', to: 'm', date: '2024-02-30' }), 400],
          [get(free.direct, { value: '100', from: 'usd', to: 'JPY', minorUnits: 'true' }), 200],
          [get(free.direct, { value: '100', from: 'USD', to: 'JPY', date: '2024-03-28' }), 403],
          [post(dev.direct, '/v1/convert', { value: '75.345', from: 'HRK', to: 'EUR', date: '2024-03-28' }), 200],
          [post(dev.direct, '/v1/convert', { value: '3.459', from: 'USD/gal', to: 'EUR/L', date: '2024-03-28' }), 200],
          [post(free.direct, '/v1/convert', { value: '12', from: 'kg*m/s^2', to: 'lbf', decimals: 4 }), 200],
          [post(dev.direct, '/v1/convert', { value: '1', from: 'GBP/kg', to: 'EUR/kg', date: '2024-04-02' }), 404],
          [
            post(dev.direct, '/v1/batch', {
              items: [
                { value: '1', from: 'm', to: 'ft' },
                { value: '1', from: 'kW*h', to: 'MJ' },
                { value: '0.25', from: 'EUR/kWh', to: 'USD/MWh', date: '2024-03-28' },
                { value: '5', from: 'usd', to: 'gbp', date: '2024-03-28' },
                { value: '1', from: 'km/h', to: 'kg' },
                { value: '1', from: 'm', to: 'ft', date: '2024-03-28' },
              ],
            }),
            200,
          ],
          [
            post(free.direct, '/v1/batch', {
              items: [
                { value: '3.459', from: 'USD/gal', to: 'EUR/L', date: '2024-03-28' },
                { value: '3.459', from: 'USD/gal', to: 'EUR/L' },
              ],
            }),
            200,
          ],
        ] as const;
        for (const [request, status] of cases) expect((await twins.sameAnswer(request, keys)).status).toBe(status);
      });

      it.each([
        '/v1/categories',
        '/v1/categories/length',
        '/v1/units',
        '/v1/units?category=temperature',
        '/v1/units/ft',
        '/v1/currency/rates/latest',
        '/v1/currencies',
        '/v1/currencies/usd',
      ])('for 200, 304 and HEAD on %s, which carries a strong ETag', async (url) => {
        // Both apps get every request: each spends its own per-IP limit, which later answers show.
        const [etag, other] = [
          (await rawRequest(origins.reference, 'GET', url, {})).headers.get('etag')!,
          (await rawRequest(origins.direct, 'GET', url, {})).headers.get('etag'),
        ];
        expect(other).toBe(etag);
        expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
        const none = NO_KEYS;
        for (const candidate of [
          undefined,
          etag,
          `W/${etag}`,
          `"other", ${etag}`,
          `"other",W/${etag} `,
          '"other"',
          `W/"other"`,
          '*',
          etag.slice(1, -1),
        ]) {
          const headers: Record<string, string> = candidate === undefined ? {} : { 'if-none-match': candidate };
          for (const method of ['GET', 'HEAD']) await expectSameAnswer({ method, url, headers }, none);
        }
      });

      it('names one pre-built answer by the resource, whatever spelling the request used', async () => {
        const urls = ['/v1/units/ft', '/v1/units/foot', '/v1/units/FEET', '/v1/units/Feet'];
        const answers = await Promise.all(
          urls.flatMap((url) => [rawRequest(origins.direct, 'GET', url, {}), rawRequest(origins.reference, 'GET', url, {})]),
        );
        expect(new Set(answers.map((a) => a.headers.get('etag'))).size).toBe(1);
        expect(new Set(answers.map((a) => a.text)).size).toBe(1);
        expect(answers[0]!.status).toBe(200);
      });

      it('from memory for a target answered before, also once that memory has started again', async () => {
        // In process (the front's own listener, no socket): thousands of distinct targets, each a spelling of a unit.
        const ask = (url: string, headers: Record<string, string> = {}) =>
          new Promise<{ status: number; headers: Record<string, string>; body: string }>((resolve) => {
            const req = { method: 'GET', url, headers, socket: { remoteAddress: '192.0.2.7' } } as unknown as IncomingMessage;
            let status = 0;
            let written: Record<string, string> = {};
            const res = {
              headersSent: false,
              writeHead(code: number, _reason: string, fields: Record<string, string>) {
                [status, written] = [code, fields];
                return res;
              },
              end(body?: string | Buffer | null) {
                resolve({ status, headers: written, body: body?.toString() ?? '' });
              },
            };
            frontListenerOf(direct.app)(req, res as unknown as ServerResponse);
          });
        const spellings = (word: string, count: number) =>
          Array.from({ length: count }, (_, i) => [...word].map((c, j) => ((i >> j) & 1 ? c.toUpperCase() : c)).join(''));
        const first = await ask('/v1/units/kilometer');
        expect(first.status).toBe(200);
        // More targets than the edge remembers (4,096): it starts again at least once on the way.
        for (const spelling of [
          ...spellings('kilometer', 512),
          ...spellings('kilometers', 1024),
          ...spellings('millimetres', 2048),
          ...spellings('centimeter', 1024),
        ]) {
          const answer = await ask(`/v1/units/${spelling}`);
          expect(answer.status, spelling).toBe(200);
        }
        for (const url of ['/v1/units/kilometer', '/v1/units/KILOMETER', '/v1/units/kilometer', '/v1/units/km']) {
          const again = await ask(url);
          expect([again.status, again.body, again.headers['etag']]).toEqual([200, first.body, first.headers['etag']]);
          expect(again.headers['ratelimit']).toMatch(/^"per-ip";r=\d+;t=\d+$/);
          expect((await ask(url, { 'if-none-match': first.headers['etag']! })).status).toBe(304);
        }
        // An unknown spelling is never remembered as an answer.
        for (let i = 0; i < 2; i += 1) expect((await ask('/v1/units/kilometre-ish')).status).toBe(404);
      });

      it('writes the answers of one turn together, before that turn ends', async () => {
        const order: string[] = [];
        const microtasks = async (count: number) => {
          for (let i = 0; i < count; i += 1) await Promise.resolve();
        };
        const enter = (url: string, i: number) =>
          new Promise<void>((resolve) => {
            const req = { method: 'GET', url, headers: {}, socket: { remoteAddress: '192.0.2.8' } } as unknown as IncomingMessage;
            const res = { headersSent: false, writeHead: () => res, end: () => (order.push(`answer ${i}`), resolve()) };
            frontListenerOf(direct.app)(req, res as unknown as ServerResponse);
          });
        await enter('/v1/units/meter', -1); // known from here on: answered without any I/O
        order.length = 0;
        const done: Promise<void>[] = [];
        for (const [i, url] of ['/v1/units/meter', '/v1/units/meter', '/v1/units/meter'].entries()) {
          done.push(enter(url, i));
          // Long enough for an answer ready in microtasks to have been written, were it written at once.
          await microtasks(50);
          expect(order).toEqual([]);
        }
        // Scheduled after the requests entered: the edge's delivery of this turn runs first.
        setImmediate(() => order.push('next immediate'));
        await Promise.all(done);
        await new Promise((resolve) => setImmediate(resolve));
        expect(order).toEqual(['answer 0', 'answer 1', 'answer 2', 'next immediate']);
      });

      it('for the time series in JSON, CSV and NDJSON, its 304 and HEAD, and its refusals', async () => {
        const [dev, free] = [await twinKeys('developer'), await twinKeys('free')];
        const keys = { template: [dev.direct, free.direct], direct: [dev.direct, free.direct], reference: [dev.reference, free.reference] };
        const auth = (key: string, more: Record<string, string> = {}) => ({ authorization: `Bearer ${key}`, ...more });
        const url = '/v1/currency/rates/series?start=2024-03-01&end=2024-03-31&symbols=usd,%20JPY,RUB';
        const cases = [
          { method: 'GET', url, headers: auth(dev.direct) },
          { method: 'GET', url: `${url}&group=week`, headers: auth(dev.direct, { accept: 'text/csv' }) },
          { method: 'GET', url: `${url}&group=month&base=USD`, headers: auth(dev.direct, { accept: 'application/x-ndjson' }) },
          {
            method: 'GET',
            url: '/v1/currency/rates/series?start=1999-01-01&end=2030-12-31',
            headers: auth(dev.direct, { accept: 'text/*;q=0.5, application/json;q=0.4' }),
          },
          { method: 'HEAD', url, headers: auth(dev.direct, { accept: 'text/csv' }) },
          { method: 'GET', url, headers: auth(dev.direct, { accept: 'image/png' }) },
          { method: 'GET', url, headers: auth(free.direct, { accept: 'text/csv' }) },
          { method: 'GET', url: `${url}&group=fortnight`, headers: auth(dev.direct) },
          { method: 'GET', url: '/v1/currency/rates/series?start=2024-03-01&end=2024-03-31&symbols=USD,,JPY', headers: auth(dev.direct) },
          { method: 'GET', url: '/v1/currency/rates/series?start=2024-03-01', headers: auth(dev.direct) },
          { method: 'GET', url, headers: {} },
        ];
        for (const request of cases) await expectSameAnswer(request, keys);
        for (const accept of ['application/json', 'text/csv', 'application/x-ndjson']) {
          const first = await rawRequest(origins.direct, 'GET', url, auth(dev.direct, { accept }));
          const etag = first.headers.get('etag')!;
          expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
          expect((await rawRequest(origins.reference, 'GET', url, auth(dev.reference, { accept }))).headers.get('etag')).toBe(etag);
          for (const candidate of [etag, `W/${etag}`, '"other"', '*']) {
            for (const method of ['GET', 'HEAD'])
              await expectSameAnswer({ method, url, headers: auth(dev.direct, { accept, 'if-none-match': candidate }) }, keys);
          }
        }
      });

      it('for a strong ETag and 304 on the shared route', async () => {
        const [first] = [
          await rawRequest(origins.direct, 'GET', '/v1/currency/rates/latest', {}),
          await rawRequest(origins.reference, 'GET', '/v1/currency/rates/latest', {}),
        ];
        const etag = first!.headers.get('etag')!;
        for (const candidate of [etag, `W/${etag}`, '"other"', '*']) {
          await expectSameAnswer({ method: 'GET', url: '/v1/currency/rates/latest', headers: { 'if-none-match': candidate } }, NO_KEYS);
        }
      });

      it.each(ROUTES.filter((r) => r.field !== undefined).map((r) => [`${r.method} ${r.path}`, r] as const))(
        'for hostile requests of %s',
        async (_, route) => {
          const [key, freeKey] = [await twinKeys('developer'), await twinKeys('free')];
          const keys = {
            template: [key.direct, freeKey.direct],
            direct: [key.direct, freeKey.direct],
            reference: [key.reference, freeKey.reference],
          };
          await fc.assert(
            fc.asyncProperty(requestOf(route, key.direct, freeKey.direct), (request) => expectSameAnswer(request, keys)),
            { numRuns: 60 },
          );
        },
      );
    });
  });
}
