import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { printSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate, GENERATED_FILE } from '../../codegen';
import { sortedSchema } from '../../src/graphql';
import { ROUTES } from '../../src/http/routes';
import { createTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
let served: any;
beforeAll(async () => {
  t = await createTestApp();
  served = (await t.call('GET', '/openapi.json')).body;
});
afterAll(() => t.close());

describe('the committed contract files', () => {
  it('schema/schema.graphql is the sorted SDL of the code (run npm run schema:print)', () => {
    expect(readFileSync('schema/schema.graphql', 'utf8')).toBe(`${printSchema(sortedSchema())}\n`);
  });

  it('schema/openapi.json is the document the server serves (run npm run schema:print)', () => {
    expect(JSON.parse(readFileSync('schema/openapi.json', 'utf8'))).toEqual(served);
  });

  it('the generated typed documents are current (run npm run codegen)', async () => {
    expect(readFileSync(GENERATED_FILE, 'utf8')).toBe(await generate());
  });
});

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1.0 document titled Measurement API 0.1.0', async () => {
    expect(served.openapi).toBe('3.1.0');
    expect(served.info).toMatchObject({ title: 'Measurement API', version: '0.1.0' });
    const result = await new Validator().validate(structuredClone(served));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('documents exactly the routes of the route table (HEAD and the CORS preflight said on the path, not operations), each keyed route with bearer security but the signed links route, which has none', () => {
    const documented = Object.entries(served.paths).flatMap(([path, item]) =>
      Object.keys(item as object)
        .filter((key) => key !== 'description')
        .map((m) => `${m.toUpperCase()} ${path}`),
    );
    const expected = ROUTES.flatMap((r) => {
      const path = r.path.replace(/:([a-z]+)/g, '{$1}');
      return [`${r.method} ${path}`];
    });
    expect(documented.sort()).toEqual(expected.sort());
    for (const route of ROUTES) {
      const operation = served.paths[route.path.replace(/:([a-z]+)/g, '{$1}')][route.method.toLowerCase()];
      expect(operation.security).toEqual(route.access === 'key' && !route.signedLink ? [{ bearerAuth: [] }] : []);
      expect(operation.responses['200']).toBeDefined();
    }
  });

  it('documents no query parameters on POST routes and no SOFA leftovers', () => {
    const text = JSON.stringify(served);
    expect(text).not.toMatch(/SOFA|webhook|"nullable"/);
    for (const item of Object.values<any>(served.paths)) {
      expect(item.post?.parameters?.filter((p: any) => p.in === 'query') ?? []).toEqual([]);
    }
  });

  it('names the path parameters as the specification does', () => {
    expect(Object.keys(served.paths)).toEqual(expect.arrayContaining(['/v1/categories/{category}', '/v1/units/{unit}']));
    expect(served.paths['/v1/units/{unit}'].get.parameters.map((p: any) => p.name)).toEqual(['unit', 'lang']);
    expect(served.paths['/v1/categories/{category}'].get.parameters.map((p: any) => p.name)).toEqual(['category', 'lang']);
  });

  it('types the rates as a map from currency code to decimal string', () => {
    const rates = served.components.schemas.Rates.properties.rates;
    expect(rates).toMatchObject({
      type: 'object',
      propertyNames: { pattern: '^[A-Z]{3}$' },
      additionalProperties: { type: 'string', pattern: '^-?\\d+(\\.\\d+)?$' },
    });
  });

  it('documents 405 only as it happens: on no operation, and on every path with the methods Allow lists', () => {
    for (const [path, item] of Object.entries<any>(served.paths)) {
      for (const [method, operation] of Object.entries<any>(item))
        if (method !== 'description') expect(operation.responses['405'], `${method} ${path}`).toBeUndefined();
      expect(item.description, path).toMatch(/405 METHOD_NOT_ALLOWED, `Allow: [A-Z, ]+`/);
    }
  });

  it('says HEAD on every GET path, and lists it as no operation (no operationId a generator would double)', () => {
    for (const [path, item] of Object.entries<any>(served.paths)) {
      expect(item.head, path).toBeUndefined();
      if (item.get) expect(item.description, path).toContain('HEAD answers as GET does');
      else expect(item.description, path).not.toContain('HEAD');
    }
  });

  it('says the CORS preflight on every shared path and in the info, and lists no OPTIONS operation (no `…Preflight` method in a generated client)', () => {
    const shared = new Set(ROUTES.filter((r) => r.shared).map((r) => r.path.replace(/:([a-z]+)/g, '{$1}')));
    expect(shared.size).toBeGreaterThan(5);
    for (const [path, item] of Object.entries<any>(served.paths)) {
      expect(item.options, path).toBeUndefined();
      for (const [method, operation] of Object.entries<any>(item))
        if (method !== 'description') expect(operation.operationId ?? '', `${method} ${path}`).not.toMatch(/preflight/i);
      if (shared.has(path)) {
        expect(item.description, path).toContain("OPTIONS answers a browser's CORS preflight with 204");
        expect(item.description, path).toContain('`Access-Control-Allow-Methods: GET, HEAD`');
        expect(item.description, path).toMatch(/`Allow: [A-Z, ]*OPTIONS`/);
      } else expect(item.description, path).not.toContain('CORS');
    }
    expect(served.info.description).toContain('OPTIONS answers its CORS preflight');
  });

  it("states the server's bounds: value pattern, decimals 0..40, date format, 1 to 1000 batch items, rounding modes", () => {
    const convert = Object.fromEntries(served.paths['/v1/convert'].get.parameters.map((p: any) => [p.name, p.schema]));
    expect(convert.value).toMatchObject({
      type: 'string',
      pattern: '^-?\\d{1,40}(\\.\\d{1,40})?$',
      description: expect.stringContaining('40 digits'),
    });
    expect(convert.decimals).toMatchObject({ type: 'integer', minimum: 0, maximum: 40 });
    expect(served.components.schemas.Rounding.enum).toEqual(['HALF_UP', 'HALF_EVEN', 'DOWN', 'UP', 'FLOOR', 'CEILING']);
    const batch = served.paths['/v1/batch'].post.requestBody.content['application/json'].schema.properties.items;
    expect(batch).toMatchObject({ type: 'array', minItems: 1, maxItems: 1000 });
    const item = served.components.schemas.BatchItemInput.properties;
    expect(item.value).toMatchObject({ type: 'string', pattern: convert.value.pattern });
    expect(item.decimals).toMatchObject({ minimum: 0, maximum: 40 });
    expect(item.date).toMatchObject({ type: 'string', format: 'date' });
    expect(served.paths['/v1/currency/convert'].post.requestBody.content['application/json'].schema.properties.value.pattern).toBe(
      convert.value.pattern,
    );
  });

  it("declares the parser's refusals (408, 431) on every operation, and 413/415 on every POST", () => {
    for (const [path, item] of Object.entries<any>(served.paths)) {
      for (const method of ['get', 'post']) {
        if (!item[method]) continue;
        expect(Object.keys(item[method].responses), `${method} ${path}`).toEqual(
          expect.arrayContaining(['408', '431', ...(method === 'post' ? ['413', '415'] : [])]),
        );
      }
    }
  });

  it('names the error schema ErrorBody (not the global Error) and leaves a null param out of it: REST never sends one', () => {
    expect(served.components.schemas.Error).toBeUndefined();
    expect(served.components.schemas.ErrorBody.properties.param).toEqual({ type: 'string', description: expect.any(String) });
  });

  it('has a bearer security scheme, and no scheme in a query string', () => {
    expect(served.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(Object.values<{ in?: string }>(served.components.securitySchemes).filter((scheme) => scheme.in === 'query')).toEqual([]);
  });

  it("gives each operation's 200 one media type (a generated client parses it by that), but the signed links route's (the link names it)", () => {
    const several = Object.entries<Record<string, any>>(served.paths).flatMap(([path, item]) =>
      ['get', 'post']
        .filter((method) => item[method] && Object.keys(item[method].responses['200'].content ?? {}).length > 1)
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(several).toEqual(['GET /v1/currency/rates/series/signed']);
    const series = served.paths['/v1/currency/rates/series'].get.responses['200'];
    expect(Object.keys(series.content)).toEqual(['application/json']);
    expect(series['x-other-formats']).toEqual({ 'text/csv': 'rateSeriesCsv', 'application/x-ndjson': 'rateSeriesNdjson' });
    expect(Object.keys(served.paths['/v1/currency/rates/series.csv'].get.responses['200'].content)).toEqual(['text/csv']);
    expect(Object.keys(served.paths['/v1/currency/rates/series.ndjson'].get.responses['200'].content)).toEqual(['application/x-ndjson']);
  });
});

describe('the rate-limit directives', () => {
  it('put every field of the route table under the limit of its access (per IP public, per key keyed)', async () => {
    const { schema } = await import('../../src/graphql');
    const fields = schema.getQueryType()!.getFields();
    for (const route of ROUTES.filter((r) => r.field !== undefined)) {
      const directives = Object.keys((fields[route.field!]!.extensions as { directives?: object }).directives ?? {});
      expect(directives, route.field).toEqual([route.access === 'key' ? 'keyRateLimit' : 'publicRateLimit']);
    }
    for (const [name, field] of Object.entries(fields)) {
      expect(Object.keys((field.extensions as { directives?: object }).directives ?? {}), `${name} has no rate limit`).toHaveLength(1);
    }
  });
});
