import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NEXT_STEP, PLAN_CHANGE } from '../../src/domain/errors';
import { currentMonth } from '../../src/domain/quota';
import { createTestApp, type TestApp } from '../helpers/app';
import { MADE_UP_PUBLICATIONS, tableRates } from '../helpers/table-rates';

const NOW = new Date('2024-04-03T12:00:00Z');
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({}, { rates: tableRates(MADE_UP_PUBLICATIONS), clock: () => NOW });
});
afterAll(() => t.close());

async function usedUpKey(): Promise<string> {
  const { key, account } = await t.createAccountKey('free');
  await t.store.consumeQuota(account.id, currentMonth(NOW), 1000, 1000);
  return key;
}

describe('a refusal the caller cannot fix by an argument ends with one next step, the same on REST and GraphQL', () => {
  it('the next steps name whom to ask, as the account page does, never the operator’s command line', () => {
    for (const step of Object.values(NEXT_STEP)) {
      expect(step).toContain(PLAN_CHANGE);
      expect(step).not.toMatch(/admin |--email|--plan|\/account/);
    }
  });

  it('PLAN_REQUIRED for a date', async () => {
    const free = await t.createKey('free');
    const rest = await t.call('POST', '/v1/currency/convert', {
      key: free,
      body: { value: '1', from: 'USD', to: 'JPY', date: '2024-03-28' },
    });
    expect(rest.body.error).toMatchObject({ code: 'PLAN_REQUIRED', message: expect.stringMatching(/Developer plan or higher/) });
    expect(rest.body.error.message.endsWith(` ${NEXT_STEP.PLAN_REQUIRED}`)).toBe(true);
    const graphql = await t.graphql(
      '{ convertCurrency(value: "1", from: "USD", to: "JPY", date: "2024-03-28") { result { value } } }',
      {},
      free,
    );
    expect(graphql.body.errors[0]).toMatchObject({ message: rest.body.error.message, extensions: { code: 'PLAN_REQUIRED' } });
  });

  it('PLAN_REQUIRED for a series', async () => {
    const free = await t.createKey('free');
    const rest = await t.call('GET', '/v1/currency/rates/series?start=2024-03-01&end=2024-03-31', { key: free });
    expect(rest.body.error.code).toBe('PLAN_REQUIRED');
    expect(rest.body.error.message.endsWith(` ${NEXT_STEP.PLAN_REQUIRED}`)).toBe(true);
  });

  it('QUOTA_EXCEEDED on REST, in a batch and on GraphQL', async () => {
    const key = await usedUpKey();
    const rest = await t.call('GET', '/v1/convert?value=1&from=mile&to=km', { key });
    expect(rest.body.error.code).toBe('QUOTA_EXCEEDED');
    expect(rest.body.error.message.endsWith(` ${NEXT_STEP.QUOTA_EXCEEDED}`)).toBe(true);
    const batch = await t.call('POST', '/v1/batch', { key, body: { items: [{ value: '1', from: 'mile', to: 'km' }] } });
    expect(batch.body.data.results[0].error).toMatchObject({ code: 'QUOTA_EXCEEDED', message: rest.body.error.message });
    const graphql = await t.graphql('{ convert(value: "1", from: "mile", to: "km") { result { value } } }', {}, key);
    expect(graphql.body.errors[0]).toMatchObject({ message: rest.body.error.message, extensions: { code: 'QUOTA_EXCEEDED' } });
  });
});

describe('one timestamp format across answers', () => {
  it('the quota reset reads the same in /v1/usage, GraphQL extensions and the QUOTA_EXCEEDED message', async () => {
    const key = await usedUpKey();
    const usage = await t.call('GET', '/v1/usage', { key });
    const reset = usage.body.data.quota.reset;
    expect(reset).toBe('2024-05-01T00:00:00.000Z');
    const graphql = await t.graphql('{ convert(value: "1", from: "mile", to: "km") { category } }', {}, key);
    expect(graphql.body.extensions.quota.resetsAt).toBe(reset);
    expect(graphql.body.errors[0].message).toContain(`it resets at ${reset}.`);
  });
});
