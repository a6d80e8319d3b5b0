import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/http/routes';
import { createHostileApp, expectRestInvariants, show, type HostileApp } from './harness';
import { requestOf, type RestRequest } from './rest-requests';

/** Per route; 12 routes. */
const RUNS = 120;

let h: HostileApp;
beforeAll(async () => {
  h = await createHostileApp();
});
afterAll(async () => {
  h.slowest.print('REST request');
  await h.t.close();
});

const describeRequest = (r: RestRequest) =>
  `${r.method} ${show(r.url)} headers ${show(r.headers)}${r.rawBody === undefined ? '' : ` body ${show(r.rawBody)}`}`;

describe.each(ROUTES.map((route) => [`${route.method} ${route.path}`, route] as const))('%s under hostile input', (_, route) => {
  it('answers every request below 500, in the contract error shape, with the request id, in time', async () => {
    const statuses = new Set<number>();
    await fc.assert(
      fc.asyncProperty(requestOf(route, h.key, h.freeKey), async (request) => {
        const input = describeRequest(request);
        const res = await h.slowest.time(
          () => input,
          () =>
            h.t.call(request.method, request.url, {
              headers: request.headers,
              ...(request.rawBody === undefined ? {} : { rawBody: request.rawBody }),
            }),
        );
        expectRestInvariants(res, input);
        statuses.add(res.status);
      }),
      { numRuns: RUNS },
    );
    // Not vacuous: some requests got through to an answer, others were refused. A signed link's
    // route answers only a link the server made (test/http/series-links.test.ts), which no
    // generated request is.
    if (!route.signedLink)
      expect(
        [...statuses].some((s) => s < 300),
        `statuses ${[...statuses]}`,
      ).toBe(true);
    expect(
      [...statuses].some((s) => s >= 400),
      `statuses ${[...statuses]}`,
    ).toBe(true);
  });
});

describe('after the hostile requests', () => {
  it('the app still converts and reports health', async () => {
    const res = await h.t.call('GET', '/v1/convert?value=12.5&from=in&to=cm', { key: h.key });
    expect(res.status).toBe(200);
    expect(res.body.data.result.value).toBe('31.75');
    expect((await h.t.call('GET', '/v1/health')).status).toBe(200);
  });
});
