import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('the public units catalogue', () => {
  it('lists the 15 categories in catalogue order, without a key', async () => {
    const res = await t.call('GET', '/v1/categories');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(res.body.data).toHaveLength(15);
    expect(res.body.data[0]).toEqual({
      id: 'length',
      name: 'Length',
      localName: { text: 'Length', language: 'en', localized: true },
      baseUnit: 'meter',
      unitCount: 16,
    });
    expect(res.body.data.map((c: { id: string }) => c.id).at(-1)).toBe('fuel_economy');
  });

  it('looks up a category case-insensitively, with its units', async () => {
    const res = await t.call('GET', '/v1/categories/Temperature');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: 'temperature', unitCount: 5 });
    expect(res.body.data.units.map((u: { id: string }) => u.id)).toEqual(['kelvin', 'celsius', 'fahrenheit', 'rankine', 'reaumur']);
  });

  it('answers 404 NOT_FOUND for an unknown category in the path', async () => {
    const res = await t.call('GET', '/v1/categories/smells');
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'NOT_FOUND', param: 'category' });
  });

  it('lists all 154 units, or those of one category', async () => {
    expect((await t.call('GET', '/v1/units')).body.data).toHaveLength(154);
    const data = (await t.call('GET', '/v1/units?category=data')).body.data;
    expect(data).toHaveLength(14);
    expect(data.every((u: { category: string }) => u.category === 'data')).toBe(true);
  });

  it('answers 400 INVALID_REQUEST for an unknown category filter', async () => {
    const res = await t.call('GET', '/v1/units?category=smells');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'INVALID_REQUEST', param: 'category' });
  });

  it.each([
    ['meter', 'meter'],
    ['METER', 'meter'],
    ['metres', 'meter'],
    ['ft', 'foot'],
    ['km%2Fh', 'kilometer_per_hour'],
    ['%C2%B0C', 'celsius'],
    ['L%2F100%20km', 'liter_per_100_kilometers'],
  ])('looks up the unit %s as its canonical id %s', async (token, id) => {
    const res = await t.call('GET', `/v1/units/${token}`);
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(id);
  });

  it('describes a unit with its aliases and exactness', async () => {
    const { data } = (await t.call('GET', '/v1/units/radian')).body;
    expect(data).toMatchObject({ id: 'radian', symbol: 'rad', category: 'angle', exact: false });
    expect(Array.isArray(data.aliases)).toBe(true);
    expect((await t.call('GET', '/v1/units/meter')).body.data.exact).toBe(true);
  });

  it('matches symbols case-sensitively (MB is a megabyte, mB is not a unit)', async () => {
    expect((await t.call('GET', '/v1/units/MB')).body.data.id).toBe('megabyte');
    expect((await t.call('GET', '/v1/units/mB')).status).toBe(404);
  });

  it('answers 404 NOT_FOUND for an unknown unit in the path', async () => {
    const res = await t.call('GET', '/v1/units/furlong');
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'NOT_FOUND', param: 'unit' });
  });

  it('reports health without a key', async () => {
    const res = await t.call('GET', '/v1/health');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body.data).toMatchObject({ version: '0.1.0', rates: { date: null } });
    expect(['ok', 'degraded']).toContain(res.body.data.status);
  });
});
