import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphQLRequest } from './graphql-requests';
import { createHostileApp, expectGraphQLInvariants, show, type HostileApp } from './harness';

/** Requests of the whole endpoint: documents, parameters, bodies, headers and methods. */
const RUNS = 500;

let h: HostileApp;
beforeAll(async () => {
  h = await createHostileApp();
});
afterAll(async () => {
  h.slowest.print('GraphQL transport request');
  await h.t.close();
});

describe('POST and GET /graphql under hostile documents, parameters, bodies and headers', () => {
  it('answer below 500 with JSON errors carrying a contract code and its status, in time', async () => {
    await fc.assert(
      fc.asyncProperty(graphQLRequest(h.key, h.freeKey), async (r) => {
        const input = `${r.method} ${show(r.url)} headers ${show(r.headers)}${r.body === undefined ? '' : ` body ${show(r.body)}`}`;
        const response = await h.slowest.time(
          () => input,
          async () => h.t.fetch(r.url, { method: r.method, headers: { ...r.headers }, ...(r.body === undefined ? {} : { body: r.body }) }),
        );
        const text = await response.text();
        let body: any;
        try {
          body = JSON.parse(text);
        } catch {
          expect.fail(`${response.status} answered with a body that is not JSON for ${input}: ${show(text)}`);
        }
        expectGraphQLInvariants(response.status, body, input);
        if ([405, 413, 415].includes(response.status)) expect(body.errors[0].extensions.status, input).toBe(response.status);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('after the hostile requests', () => {
  it('GraphQL still answers', async () => {
    expect((await h.t.graphql('{ health { status } }')).body).toEqual({
      data: { health: { status: 'ok' } },
      extensions: expect.anything(),
    });
  });
});
