import { afterEach, describe, expect, it } from 'vitest';
import { GRAPHIQL_DEFAULT_QUERY } from '../../../src/app';
import { createTestApp, type TestApp } from '../../helpers/app';
import { MADE_UP_PUBLICATIONS, tableRates } from '../../helpers/table-rates';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const withRates = () => createTestApp({}, { rates: tableRates(MADE_UP_PUBLICATIONS), clock: () => new Date('2024-04-03T12:00:00Z') });

describe("GraphiQL's starting document", () => {
  it('runs as it is without a key: a unit, the categories and the latest ECB rates together, no error', async () => {
    t = await withRates();
    const { body } = await t.graphql(GRAPHIQL_DEFAULT_QUERY);
    expect(body.errors).toBeUndefined();
    expect(body.data.unit).toMatchObject({ id: 'foot', symbol: 'ft' });
    expect(body.data.categories).toHaveLength(15);
    expect(body.data.latestRates).toMatchObject({ date: '2024-04-02', base: 'EUR', rates: { USD: '1.0764', JPY: '163.02' } });
  });

  it('no line is longer than 50 characters (the editor shows each whole at a laptop width: test/e2e/graphiql-browser.test.ts)', () => {
    const lines = GRAPHIQL_DEFAULT_QUERY.split('\n');
    expect(lines.length).toBeGreaterThan(10);
    expect(lines.filter((line) => line.length > 50)).toEqual([]);
  });

  it('with its conversions uncommented and a key, converts a unit and a currency (rounded to the yen)', async () => {
    t = await withRates();
    const key = await t.createKey();
    // What Ctrl-/ does to the selected lines inside the braces: each loses its "# ".
    const uncommented = GRAPHIQL_DEFAULT_QUERY.replace(/^ {2}# /gm, '  ');
    expect(uncommented).not.toBe(GRAPHIQL_DEFAULT_QUERY);
    const { body } = await t.graphql(uncommented, {}, key);
    expect(body.errors).toBeUndefined();
    expect(body.data.convert.result).toEqual({ value: '31.75', unit: 'centimeter' });
    expect(body.data.convertCurrency.result.unit).toBe('JPY');
    expect(body.data.convertCurrency.result.value).toMatch(/^\d+$/);
    expect(body.data.convertCurrency.rate).toMatchObject({ date: '2024-04-02', source: 'ecb' });
  });
});
