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
  served = await (await t.app.yoga.fetch('http://localhost/openapi.json')).json();
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

  it('documents exactly the routes of the route table, each keyed route with bearer security', () => {
    const documented = Object.entries(served.paths).flatMap(([path, item]) => Object.keys(item as object).map((m) => `${m.toUpperCase()} ${path}`));
    const expected = ROUTES.map((r) => `${r.method} ${r.path.replace(/:([a-z]+)/g, '{$1}')}`);
    expect(documented.sort()).toEqual(expected.sort());
    for (const route of ROUTES) {
      const operation = served.paths[route.path.replace(/:([a-z]+)/g, '{$1}')][route.method.toLowerCase()];
      expect(operation.security).toEqual(route.access === 'key' ? [{ bearerAuth: [] }] : []);
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

  it('has a bearer security scheme', () => {
    expect(served.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
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
