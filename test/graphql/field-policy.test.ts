import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql';
import { parse } from 'graphql';
import { policyOf } from '../../src/graphql/field-policy';
import { documentPrice } from '../../src/graphql/price';
import { CONVERSION_FIELDS } from '../../src/graphql/limits';
import { ROUTES } from '../../src/http/routes';
import { createTestApp, type TestApp } from '../helpers/app';
import { MADE_UP_PUBLICATIONS, tableRates } from '../helpers/table-rates';

/**
 * A root field's access and conversion cost are declared once, with the field (policy() in
 * src/graphql/field-policy.ts); the directive, the route table, the cost plan and the REST edge read
 * them. The resolvers decide for themselves whether they ask for a key and charge the quota: every
 * field is run here, without a key and with one, and must do what its policy says.
 */
const FIELDS = Object.values(schema.getQueryType()!.getFields());
const ITEM = '{value: "1", from: "m", to: "ft"}';
/** One document per Query field; a field charged per item is sent two items. A new field needs its line here. */
const SAMPLES: Record<string, string> = {
  categories: '{ categories { id } }',
  category: '{ category(id: "length") { id } }',
  units: '{ units(category: "length") { id } }',
  unit: '{ unit(id: "ft") { id } }',
  convert: '{ convert(value: "1", from: "m", to: "ft") { category } }',
  convertPost: '{ convertPost(value: "1", from: "m", to: "ft") { category } }',
  convertCurrency: '{ convertCurrency(value: "1", from: "EUR", to: "USD") { result { value } } }',
  batch: `{ batch(items: [${ITEM}, ${ITEM}]) { succeeded } }`,
  rates: '{ rates { date } }',
  latestRates: '{ latestRates { date } }',
  rateSeries: '{ rateSeries(start: "2024-03-01", end: "2024-03-31", symbols: ["USD"]) { entries { period } } }',
  rateSeriesLink: '{ rateSeriesLink(start: "2024-03-01", end: "2024-03-31", symbols: ["USD"]) { url } }',
  currencies: '{ currencies { code } }',
  sources: '{ sources { id } }',
  currency: '{ currency(code: "usd") { code } }',
  health: '{ health { status } }',
  usage: '{ usage { quota { used } days { day delivered } } }',
};

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({}, { rates: tableRates(MADE_UP_PUBLICATIONS), clock: () => new Date('2024-04-03T12:00:00Z') });
});
afterAll(() => t.close());

describe.each(FIELDS.map((field) => [field.name, field] as const))('Query.%s', (name, field) => {
  const declared = policyOf(field);
  const conversions = declared?.conversions === undefined ? 0 : declared.conversions === 'one' ? 1 : 2;

  it('declares its policy, and carries the rate-limit directive of its access', () => {
    expect(declared, `${name} has no policy(...) in its definition`).toBeDefined();
    expect(field.extensions['directives']).toEqual({ [declared!.access === 'key' ? 'keyRateLimit' : 'publicRateLimit']: {} });
    expect(CONVERSION_FIELDS.has(name)).toBe(conversions > 0);
  });

  it('backs REST routes of the same access', () => {
    for (const route of ROUTES.filter((r) => r.field === name)) expect(route.access).toBe(declared!.access);
  });

  it('asks for a key exactly when its policy says so', async () => {
    expect(SAMPLES[name], `add a sample document for ${name}`).toBeDefined();
    const { body } = await t.graphql(SAMPLES[name]!);
    const codes = (body.errors ?? []).map((e: { extensions: { code: string } }) => e.extensions.code);
    expect(codes).toEqual(declared!.access === 'key' ? ['UNAUTHORIZED'] : []);
  });

  it('is planned and charged the conversions its policy declares, and the requests of its price', async () => {
    const key = await t.createKey('developer');
    const { body } = await t.graphql(SAMPLES[name]!, {}, key);
    expect(body.errors).toBeUndefined();
    const { requests } = documentPrice(schema, parse(SAMPLES[name]!), undefined, {});
    expect(requests).toBe(1);
    expect(body.extensions.cost).toEqual({ requestedConversions: conversions, chargedConversions: conversions, requests });
    if (declared!.access === 'key') expect(body.extensions.quota.remaining).toBe(100_000 - conversions);
  });
});
