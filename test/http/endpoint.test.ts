import { buildSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql';
import { Endpoints } from '../../src/http/rest/endpoint';

describe('the route table compiled into endpoints', () => {
  const endpoints = new Endpoints(schema, () => 120);

  it.each([
    ['GET', '/v1/units/meter', 'GET /v1/units/:unit', { unit: 'meter' }],
    ['HEAD', '/v1/units/meter', 'GET /v1/units/:unit', { unit: 'meter' }],
    ['POST', '/v1/convert', 'POST /v1/convert', {}],
    ['GET', '/v1/convert', 'GET /v1/convert', {}],
  ])('%s %s reaches %s', (method, path, reached, params) => {
    const found = endpoints.find(path, method);
    expect(found?.endpoint && `${found.endpoint.route.method} ${found.endpoint.route.path}`).toBe(reached);
    expect(found?.match.params).toEqual(params);
  });

  it('finds the path but no endpoint for a method no route on it takes (405), and nothing off the table (404)', () => {
    expect(endpoints.find('/v1/batch', 'GET')).toMatchObject({ endpoint: undefined });
    expect(endpoints.find('/v1/batch', 'GET')?.match.routes.map((r) => r.method)).toEqual(['POST']);
    expect(endpoints.find('/v1/nowhere', 'GET')).toBeUndefined();
  });

  it('gives each endpoint its field, metric label, CORS fields and Cache-Control', () => {
    const unit = endpoints.find('/v1/units/meter', 'GET')!.endpoint!;
    expect([unit.field?.name, unit.label, unit.cors['access-control-allow-origin'], unit.cacheControl()]).toEqual([
      'unit',
      '/v1/units/{unit}',
      '*',
      'public, max-age=3600',
    ]);
    expect(endpoints.find('/v1/convert', 'GET')!.endpoint!.cors).toEqual({});
    const latest = endpoints.find('/v1/currency/rates/latest', 'GET')!.endpoint!;
    expect([latest.field?.name, latest.cors['access-control-allow-origin'], latest.cacheControl()]).toEqual([
      'latestRates',
      '*',
      'public, max-age=120',
    ]);
    const document = endpoints.find('/openapi.json', 'GET')!.endpoint!;
    expect(document.field).toBeUndefined();
  });

  it('refuses to start when a row names a field the schema does not have', () => {
    expect(() => new Endpoints(buildSchema('type Query { health: String }'), () => 0)).toThrow(
      /names Query\.\w+, which the schema does not have/,
    );
  });
});
