import { print, type DocumentNode } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';
import { BatchDocument, CatalogueDocument, ConvertDocument, HealthDocument, UnitLookupDocument } from './generated';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  key = await t.createKey();
});
afterAll(() => t.close());

const run = (document: DocumentNode, variables: Record<string, unknown> = {}, withKey = true) =>
  t.graphql(print(document), variables, withKey ? key : undefined);

describe('GraphQL at /graphql', () => {
  it('serves the catalogue without a key', async () => {
    const { body } = await run(CatalogueDocument, { category: 'length' }, false);
    expect(body.errors).toBeUndefined();
    expect(body.data.categories).toHaveLength(15);
    expect(body.data.units).toHaveLength(16);
  });

  it('converts with a key, exactly as REST does', async () => {
    const variables = { value: '12.50', from: 'in', to: 'cm' };
    const { body } = await run(ConvertDocument, variables);
    const rest = await t.call('GET', '/v1/convert?value=12.50&from=in&to=cm', { key });
    expect(body.data.convert).toEqual(rest.body.data);
  });

  it('refuses a conversion without a key but still answers the public fields of the document', async () => {
    const query = '{ categories { id } convert(value: "1", from: "inch", to: "foot") { result { value } } }';
    const { body } = await t.graphql(query);
    expect(body.data.categories).toHaveLength(15);
    expect(body.data.convert).toBeNull();
    expect(body.errors[0].extensions).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
  });

  it.each([
    [{ value: '1', from: 'furlong', to: 'meter' }, 'UNKNOWN_UNIT', '/v1/convert?value=1&from=furlong&to=meter'],
    [{ value: '1', from: 'meter', to: 'gram' }, 'INCOMPATIBLE_UNITS', '/v1/convert?value=1&from=meter&to=gram'],
    [{ value: '1', from: 'meter', to: 'foot', decimals: 99 }, 'INVALID_REQUEST', '/v1/convert?value=1&from=meter&to=foot&decimals=99'],
    [{ value: '1e5', from: 'meter', to: 'foot' }, 'INVALID_REQUEST', '/v1/convert?value=1e5&from=meter&to=foot'],
    [{ value: 12, from: 'meter', to: 'foot' }, 'INVALID_REQUEST', undefined],
  ])('gives the same error code as REST for %j', async (variables, code, url) => {
    const { body } = await run(ConvertDocument, variables);
    expect(body.errors[0].extensions).toMatchObject({ code, status: code === 'INVALID_REQUEST' ? 400 : 400 });
    if (url) expect((await t.call('GET', url, { key })).body.error.code).toBe(code);
  });

  it("words a bad decimals with the domain's one rule: GraphQL, REST and a batch item alike", async () => {
    const { body } = await run(ConvertDocument, { value: '1', from: 'm', to: 'ft', decimals: 41 });
    const rest = await t.call('GET', '/v1/convert?value=1&from=m&to=ft&decimals=41', { key });
    const batch = await t.call('POST', '/v1/batch', { key, body: { items: [{ value: '1', from: 'm', to: 'ft', decimals: 41 }] } });
    const messages = [body.errors[0].message, rest.body.error.message, batch.body.data.results[0].error.message];
    expect(messages).toEqual(Array(3).fill('decimals must be an integer from 0 to 40.'));
  });

  it('answers a lookup miss with NOT_FOUND on that field only', async () => {
    const { body } = await run(UnitLookupDocument, { id: 'furlong' }, false);
    expect(body.data.unit).toBeNull();
    expect(body.errors[0].extensions).toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });

  it('gives parse and validation errors the INVALID_REQUEST code', async () => {
    for (const query of ['{ categories { id ', '{ nosuchfield }', '{ convert(value: 12, from: "a", to: "b") { category } }']) {
      const { body } = await t.graphql(query);
      expect(body.errors[0].extensions).toMatchObject({ code: 'INVALID_REQUEST', status: 400 });
    }
  });

  it('supports the built-in @include and @skip directives', async () => {
    const { body } = await t.graphql('query($on: Boolean!) { health @include(if: $on) { status } categories @skip(if: $on) { id } }', {
      on: true,
    });
    expect(body).toEqual({ data: { health: { status: 'degraded' } }, extensions: expect.anything() });
  });

  it.each([
    [12, 'A Decimal must be a string such as "12.5", not a number.'],
    [['1'], 'A Decimal must be a string such as "12.5".'],
    [{ value: '1' }, 'A Decimal must be a string such as "12.5".'],
  ])('says what is wrong with a Decimal variable of %j', async (value, reason) => {
    const { body } = await run(ConvertDocument, { value, from: 'm', to: 'ft' });
    expect(body.errors[0].extensions).toMatchObject({ code: 'INVALID_REQUEST', param: 'value' });
    expect(body.errors[0].message).toContain(reason);
  });

  it('runs a batch with per-item outcomes', async () => {
    const items = [
      { value: '1', from: 'mile', to: 'kilometer' },
      { value: '1', from: 'mile', to: 'gram' },
    ];
    const { body } = await run(BatchDocument, { items });
    expect(body.data.batch).toMatchObject({ succeeded: 1, failed: 1 });
    expect(body.data.batch.results[0].data).toMatchObject({ __typename: 'Conversion', result: { value: '1.609344', unit: 'kilometer' } });
    expect(body.data.batch.results[1].error).toEqual({ code: 'INCOMPATIBLE_UNITS', param: 'to' });
  });

  it('reports health', async () => {
    const { body } = await run(HealthDocument, {}, false);
    expect(body.data.health.version).toBe('0.1.0');
  });
});

describe('GraphiQL', () => {
  it('is served at GET /graphql without any CDN', async () => {
    const response = await t.fetch('/graphql', { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toMatch(/graphiql/i);
    expect(html).not.toMatch(/<(script|link)[^>]+(src|href)=["']?https?:/i);
    expect(html).not.toMatch(/unpkg|jsdelivr|cdnjs/i);
  });
});
