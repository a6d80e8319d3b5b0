import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';

/**
 * SOFA executes REST routes only for the edge (src/http/rest/edge.ts), after its admission: through the
 * front, every /v1 target is the edge's, so the routes SOFA makes of its own (its webhooks, its
 * OpenAPI document, a kebab-cased path for each field) are never answered, and a route of the table
 * is answered only once the edge has admitted the request.
 */
describe.each(['direct', 'sofa'] as const)('SOFA inside Yoga (REST_EXECUTION=%s)', (execution) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ REST_EXECUTION: execution });
  });
  afterAll(() => t.close());

  it.each([
    ['POST', '/v1/webhook'],
    ['DELETE', '/v1/webhook/1'],
    ['GET', '/v1/openapi.json'],
    ['GET', '/v1/latest-rates'],
    ['GET', '/v1/convert-currency?value=1&from=EUR&to=USD'],
    ['GET', '/v1/unit?id=meter'],
  ])("does not answer SOFA's own route %s %s", async (method, target) => {
    const response = await t.fetch(target, { method });
    expect(response.status).toBe(404);
    const text = await response.text();
    expect(JSON.parse(text).error).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect(text).not.toContain('"data"');
  });

  it('answers through the edge, which admits first', async () => {
    const refused = await t.call('GET', '/v1/convert?value=1&from=inch&to=cm');
    expect([refused.status, refused.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
    const key = await t.createKey();
    const answered = await t.call('GET', '/v1/convert?value=1&from=inch&to=cm', { key });
    expect(answered.body.data.result).toEqual({ value: '2.54', unit: 'centimeter' });
  });
});
