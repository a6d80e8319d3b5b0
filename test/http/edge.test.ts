import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';
import { pathOf } from '../../src/http/target';
import { frontListenerOf } from '../helpers/http';

/**
 * SOFA executes REST routes only for the edge (src/http/edge.ts), after its admission: the front
 * hands every /v1 path to the edge and never to Yoga, so no request can skip the key, the rate
 * limit or the input checks; Yoga without the front's request context refuses to run at all.
 */
describe.each(['direct', 'sofa'] as const)('SOFA inside Yoga (REST_EXECUTION=%s)', (execution) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ REST_EXECUTION: execution });
  });
  afterAll(() => t.close());

  it.each(['/v1/convert?value=1&from=inch&to=cm', '/v1/units/meter', '/v1/currency/rates/latest', '/v1/health'])('hands %s to the edge, never to Yoga', async (target) => {
    expect(frontListenerOf(t.app).handlerOf(pathOf(target))).toBe(t.app.front.edge);
    const response = await t.app.yoga.fetch(`http://localhost${target}`);
    expect(response.status).toBe(500);
    expect(await response.text()).not.toContain('"data"');
  });

  it('answers through the edge, which admits first', async () => {
    const refused = await t.call('GET', '/v1/convert?value=1&from=inch&to=cm');
    expect([refused.status, refused.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
    const key = await t.createKey();
    const answered = await t.call('GET', '/v1/convert?value=1&from=inch&to=cm', { key });
    expect(answered.body.data.result).toEqual({ value: '2.54', unit: 'centimeter' });
  });
});
