import { readFileSync } from 'node:fs';
import {
  buildClientSchema,
  getIntrospectionQuery,
  lexicographicSortSchema,
  printSchema,
  type IntrospectionOptions,
  type IntrospectionQuery,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
beforeAll(async () => {
  // Every GraphQL request spends one of the IP's public requests: this suite sends more than a minute's 60.
  t = await createTestApp({ PUBLIC_RATE_LIMIT: '100000' });
});
afterAll(() => t.close());

const post = async (body: Record<string, unknown>) => {
  const response = await fetch(`${t.origin}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    body: (await response.json()) as { data?: IntrospectionQuery; errors?: Array<{ message: string; extensions: { code: string } }> },
  };
};

/** Every boolean option of the installed graphql's getIntrospectionQuery (oneOf included). */
const OPTIONS = ['descriptions', 'specifiedByUrl', 'directiveIsRepeatable', 'schemaDescription', 'inputValueDeprecation', 'oneOf'] as const;
const combinations: IntrospectionOptions[] = Array.from({ length: 2 ** OPTIONS.length }, (_, bits) =>
  Object.fromEntries(OPTIONS.map((option, i) => [option, (bits & (1 << i)) !== 0])),
);
/** The query under its own name, under another one (as tools name it), and anonymous. */
const NAMES = [
  (query: string) => ({ query }),
  (query: string) => ({
    query: query.replace('query IntrospectionQuery', 'query IntrospectSchemaForCodegen'),
    operationName: 'IntrospectSchemaForCodegen',
  }),
  (query: string) => ({ query: query.replace('query IntrospectionQuery', 'query') }),
];

describe('introspection for every tool (contract section 10)', () => {
  it(`answers getIntrospectionQuery with each of the ${2 ** OPTIONS.length} option combinations, under its name, another name and none`, async () => {
    for (const [i, options] of combinations.entries()) {
      // Each combination under one naming, and the full set of options under all three below.
      const body = NAMES[i % NAMES.length]!(getIntrospectionQuery(options));
      const res = await post(body);
      expect(res.body.errors, JSON.stringify(options)).toBeUndefined();
      expect(res.body.data!.__schema.queryType!.name).toBe('Query');
    }
    for (const name of NAMES) {
      const res = await post(name(getIntrospectionQuery(combinations.at(-1))));
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data!.__schema.types.length).toBeGreaterThan(20);
    }
  });

  it('gives buildClientSchema, over HTTP, exactly the committed schema/schema.graphql', async () => {
    const res = await post({ query: getIntrospectionQuery(combinations.at(-1)) });
    const client = buildClientSchema(res.body.data!);
    expect(`${printSchema(lexicographicSortSchema(client))}\n`).toBe(readFileSync('schema/schema.graphql', 'utf8'));
  });

  it('still refuses introspection that nests lists to explode the answer (MaxIntrospectionDepthRule)', async () => {
    const res = await post({ query: '{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }' });
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors).toEqual([
      expect.objectContaining({
        message: 'Maximum introspection depth exceeded',
        extensions: expect.objectContaining({ code: 'INVALID_REQUEST' }),
      }),
    ]);
    const viaFragments =
      '{ __schema { types { ...T } } } fragment T on __Type { fields { type { ...U } } } fragment U on __Type { fields { type { fields { name } } } }';
    expect((await post({ query: viaFragments })).body.errors![0]!.message).toBe('Maximum introspection depth exceeded');
  });

  it('bounds introspection fanned out by aliases with the expanded field limit', async () => {
    const fragment = `fragment T on __Type { ${Array.from({ length: 60 }, (_, i) => `n${i}: name`).join(' ')} }`;
    const query = `{ __schema { ${Array.from({ length: 40 }, (_, i) => `t${i}: types { ...T }`).join(' ')} } } ${fragment}`;
    const res = await post({ query });
    expect(res.body.errors![0]!.message).toMatch(/selects 2,441 fields once its fragments are expanded/);
  });
});

describe('convertPost, the field behind POST /v1/convert', () => {
  it('is deprecated, so that GraphiQL and completion leave it out, and still answers', async () => {
    const fields = async (includeDeprecated: boolean) =>
      (
        (await post({ query: `{ __type(name: "Query") { fields(includeDeprecated: ${includeDeprecated}) { name deprecationReason } } }` }))
          .body.data as any
      ).__type.fields;
    expect((await fields(false)).map((f: { name: string }) => f.name)).not.toContain('convertPost');
    expect(await fields(true)).toContainEqual({
      name: 'convertPost',
      deprecationReason: 'Use `convert`: this field exists only to serve POST /v1/convert.',
    });
    const res = await t.call('POST', '/v1/convert', { key: await t.createKey(), body: { value: '1', from: 'inch', to: 'centimeter' } });
    expect(res.body.data.result).toEqual({ value: '2.54', unit: 'centimeter' });
  });
});
