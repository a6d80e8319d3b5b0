import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAYGROUND_INTROSPECTION } from '../../src/graphql/limits';
import { nestingOf } from '../../src/graphql/limits';
import { createTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const post = async (body: unknown) => {
  const response = await t.app.yoga.fetch('http://localhost/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, headers: response.headers, body: await response.json() };
};
const conversions = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `c${i}: convert(value: "1", from: "m", to: "ft") { category }`).join(' ')} }`;

describe('GraphQL document limits (contract section 7)', () => {
  it('allows 50 conversion fields and refuses 51, aliases included', async () => {
    expect((await post({ query: conversions(50) })).body.errors[0].extensions.code).toBe('UNAUTHORIZED');
    const res = await post({ query: conversions(51) });
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'INVALID_REQUEST', status: 400 });
    expect(res.body.data).toBeUndefined();
  });

  it('counts conversion fields reached through fragments', async () => {
    const fragment = `fragment F on Query { ${Array.from({ length: 26 }, (_, i) => `f${i}: convert(value: "1", from: "m", to: "ft") { category }`).join(' ')} }`;
    const res = await post({ query: `{ ...F a: convert(value: "1", from: "m", to: "ft") { category } ... on Query { ...F } } ${fragment}` });
    expect(res.body.errors[0].message).toMatch(/conversion fields/);
  });

  it('refuses documents more than 10 levels deep', async () => {
    const nested = (depth: number): string => (depth === 0 ? 'name' : `ofType { ${nested(depth - 1)} }`);
    const ok = await post({ query: `{ __schema { types { fields { type { ${nested(5)} } } } } }` });
    expect(ok.body.errors).toBeUndefined();
    const res = await post({ query: `{ __schema { types { fields { type { ${nested(7)} } } } } }` });
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'INVALID_REQUEST' });
  });

  it("lets GraphiQL's named introspection through the depth limit, and only that", async () => {
    const introspection = getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true });
    const named = introspection.replace('query IntrospectionQuery', `query ${PLAYGROUND_INTROSPECTION}`);
    const ok = await post({ query: named, operationName: PLAYGROUND_INTROSPECTION });
    expect(ok.body.errors).toBeUndefined();
    expect(ok.body.data.__schema.queryType.name).toBe('Query');
    expect((await post({ query: introspection })).body.errors[0].extensions.code).toBe('INVALID_REQUEST');
    const smuggled = `query ${PLAYGROUND_INTROSPECTION} { __typename categories { id } ${'x: __schema { types { fields { type { ofType { ofType { ofType { ofType { ofType { ofType { name } } } } } } } } } }'} }`;
    expect((await post({ query: smuggled })).body.errors[0].extensions.code).toBe('INVALID_REQUEST');
  });

  it('survives fragment cycles with a validation error, not a crash', async () => {
    const res = await post({ query: '{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }' });
    expect(res.status).toBeLessThan(500);
    expect(res.body.errors[0].extensions.code).toBe('INVALID_REQUEST');
  });

  it.each([
    ['list values', (n: number) => `{ units(category: ${'['.repeat(n)}"length"${']'.repeat(n)}) { id } }`],
    ['selections', (n: number) => `{ ${'a { '.repeat(n)}b${' }'.repeat(n)} }`],
    ['variable types', (n: number) => `query($a: ${'['.repeat(n)}Int${']'.repeat(n)}) { __typename }`],
  ])('refuses deeply nested %s before parsing them (the recursive parser would overflow its stack: 500)', async (_, nested) => {
    for (const depth of [65, 2500]) {
      const res = await post({ query: nested(depth) });
      expect(res.status).toBeLessThan(500);
      expect(res.body.errors[0].extensions).toMatchObject({ code: 'INVALID_REQUEST', status: 400 });
      expect(res.body.errors[0].message).toMatch(/nests brackets more than 64 levels/);
    }
  });

  it('counts nesting on tokens: brackets in strings and comments do not count, a lexing error ends the count', () => {
    expect(nestingOf('{ a { b(c: [[1]]) } }')).toBe(5);
    expect(nestingOf(`{ units(category: "${'['.repeat(100)}") { id } } # ${'{'.repeat(100)}`)).toBe(2);
    expect(nestingOf(`{ a(b: """${'('.repeat(100)}""") }`)).toBe(2);
    expect(nestingOf(`${'['.repeat(100)} "unterminated`)).toBe(100);
  });

  it('refuses documents over 16 KiB with 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await post({ query: `{ categories { id } }${' '.repeat(16 * 1024)}` });
    expect(res.status).toBe(413);
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413 });
  });

  it('refuses bodies over 64 KiB with 413', async () => {
    const res = await post({ query: '{ categories { id } }', extensions: { pad: 'x'.repeat(70 * 1024) } });
    expect(res.status).toBe(413);
    expect(res.body.errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('refuses a mutation over GET and other methods with 405 METHOD_NOT_ALLOWED', async () => {
    const get = await t.app.yoga.fetch(`http://localhost/graphql?query=${encodeURIComponent('mutation { x }')}`, { headers: { accept: 'application/json' } });
    expect(get.status).toBe(405);
    expect((await get.json()).errors[0].extensions.code).toBe('METHOD_NOT_ALLOWED');
    const put = await t.app.yoga.fetch('http://localhost/graphql', { method: 'PUT' });
    expect(put.status).toBe(405);
  });

  it('answers queries over GET', async () => {
    const res = await t.app.yoga.fetch(`http://localhost/graphql?query=${encodeURIComponent('{ categories { id } }')}`, { headers: { accept: 'application/json' } });
    expect((await res.json()).data.categories).toHaveLength(15);
  });
});
