import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';

/**
 * SOFA executes REST routes only for the edge (src/http/edge.ts), after its admission: a request
 * that reaches Yoga any other way is never answered by SOFA, so it can never skip the key, the rate
 * limit or the input checks.
 */
describe.each(['on', 'off'] as const)('SOFA inside Yoga (REST_FAST_LANE=%s)', (lane) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ REST_FAST_LANE: lane });
  });
  afterAll(() => t.close());

  it.each(['/v1/convert?value=1&from=inch&to=cm', '/v1/units/meter', '/v1/currency/rates/latest', '/v1/health'])('does not answer %s when Yoga is reached directly', async (target) => {
    const response = await t.app.yoga.fetch(`http://localhost${target}`);
    expect(response.status).toBe(404);
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
