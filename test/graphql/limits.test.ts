import { parse, validate } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql';
import { documentLimitsRule, nestingOf } from '../../src/graphql/limits';
import { fragmentBomb } from './bombs';
import { createTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
beforeAll(async () => {
  // Every GraphQL request spends one of the IP's public requests: this suite sends more than a minute's 60.
  t = await createTestApp({ PUBLIC_RATE_LIMIT: '100000' });
});
afterAll(() => t.close());

const post = async (body: unknown) => {
  const response = await t.fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
};
const conversions = (n: number) =>
  `{ ${Array.from({ length: n }, (_, i) => `c${i}: convert(value: "1", from: "m", to: "ft") { category }`).join(' ')} }`;

describe('GraphQL document limits (contract section 7)', () => {
  it('allows 50 conversion fields and refuses 51, aliases included', async () => {
    expect((await post({ query: conversions(50) })).body.errors[0].extensions.code).toBe('UNAUTHORIZED');
    const res = await post({ query: conversions(51) });
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'INVALID_REQUEST', status: 400 });
    expect(res.body.data).toBeUndefined();
  });

  it('counts conversion fields reached through fragments', async () => {
    const fragment = `fragment F on Query { ${Array.from({ length: 26 }, (_, i) => `f${i}: convert(value: "1", from: "m", to: "ft") { category }`).join(' ')} }`;
    const res = await post({
      query: `{ ...F a: convert(value: "1", from: "m", to: "ft") { category } ... on Query { ...F } } ${fragment}`,
    });
    expect(res.body.errors[0].message).toMatch(/conversion fields/);
  });

  it('refuses documents more than 10 levels deep, counted through fragments and inline fragments', async () => {
    // The limits are checked before graphql's own rules: made-up fields show the depth check alone.
    const ten = await post({ query: `{ ${'a { '.repeat(9)}b${' }'.repeat(9)} }` });
    expect(ten.body.errors[0].message).toMatch(/Cannot query field "a"/);
    const res = await post({ query: `{ ${'a { '.repeat(10)}b${' }'.repeat(10)} }` });
    expect(res.body.errors).toEqual([
      expect.objectContaining({
        message: 'The document is 11 levels deep; at most 10 are allowed (introspection fields do not count).',
        extensions: expect.objectContaining({ code: 'INVALID_REQUEST', status: 400 }),
      }),
    ]);
    const throughFragments = '{ a { ...F } } fragment F on X { b { c { d { e { f { g { h { i { ... on Y { j { k } } } } } } } } } } }';
    expect((await post({ query: throughFragments })).body.errors[0].message).toMatch(/11 levels deep/);
  });

  it.each([
    ['doubled spreads', fragmentBomb(30, 'spreads')],
    ['doubled inline fragments', fragmentBomb(30, 'inline')],
    ['doubled fields inside fragments', fragmentBomb(30, 'fields')],
  ])('refuses a 30-level fragment doubling (%s) by its expanded field count, before graphql-js validates it', async (_, query) => {
    const res = await post({ query });
    expect(res.status).toBeLessThan(500);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0]).toMatchObject({ extensions: { code: 'INVALID_REQUEST', status: 400 } });
    expect(res.body.errors[0].message).toMatch(
      /^The document selects [\d,]+ fields once its fragments are expanded; at most 2,000 are allowed\.$/,
    );
  });

  it('reports the same refusals as a validation rule for graphql-js validate (documentLimitsRule)', () => {
    const errors = validate(schema, parse(fragmentBomb(30, 'inline')), [documentLimitsRule]);
    expect(errors.map((e) => e.message)).toEqual([
      'The document selects 1,073,741,824 fields once its fragments are expanded; at most 2,000 are allowed.',
    ]);
    expect(validate(schema, parse('{ health { status } }'), [documentLimitsRule])).toEqual([]);
  });

  it('answers a small doubling correctly: execution merges repeated spreads', async () => {
    const res = await post({ query: fragmentBomb(10, 'spreads') });
    expect(res.body).toEqual({ data: { __typename: 'Query' }, extensions: expect.anything() });
  });

  it('answers a wide fan-out within the field limit, and refuses it past the limit', async () => {
    const fanOut = (n: number) =>
      `{ ${Array.from({ length: n }, (_, i) => `u${i}: unit(id: "ft") { ...U }`).join(' ')} } fragment U on Unit { ${Array.from({ length: n }, (_, i) => `a${i}: id`).join(' ')} }`;
    const ok = await post({ query: fanOut(40) });
    expect(ok.body.errors).toBeUndefined();
    expect(Object.keys(ok.body.data)).toHaveLength(40);
    expect(ok.body.data.u39).toMatchObject({ a0: 'foot', a39: 'foot' });
    const refused = await post({ query: fanOut(45) });
    expect(refused.body.errors[0].message).toMatch(/selects 2,070 fields/);
  });

  it('refuses fragment cycles with a clear INVALID_REQUEST, not a crash', async () => {
    const res = await post({ query: '{ ...A } fragment A on Query { ...B } fragment B on Query { health { status } ...A }' });
    expect(res.status).toBeLessThan(500);
    expect(res.body.errors).toEqual([
      expect.objectContaining({
        message: 'Fragment "A" spreads itself (A → B → A); fragments cannot form cycles.',
        extensions: expect.objectContaining({ code: 'INVALID_REQUEST' }),
      }),
    ]);
    const long = `{ ...F0 } ${Array.from({ length: 300 }, (_, i) => `fragment F${i} on Query { ...F${(i + 1) % 300} }`).join(' ')}`;
    const res2 = await post({ query: long });
    expect(res2.body.errors[0].message).toBe(
      'Fragment "F0" spreads itself (F0 → F1 → F2 → … → F299 → F0, 300 fragments); fragments cannot form cycles.',
    );
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
    const get = await t.fetch(`/graphql?query=${encodeURIComponent('mutation { x }')}`, { headers: { accept: 'application/json' } });
    expect(get.status).toBe(405);
    expect((await get.json()).errors[0].extensions.code).toBe('METHOD_NOT_ALLOWED');
    const put = await t.fetch('/graphql', { method: 'PUT' });
    expect(put.status).toBe(405);
  });

  it('says in its own words that graphql-js stopped validating after 100 errors', async () => {
    const res = await post({ query: `{ ${Array.from({ length: 150 }, (_, i) => `f${i}`).join(' ')} }` });
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors).toHaveLength(101);
    expect(res.body.errors.at(-1)).toEqual({
      message:
        'The document has more than 100 validation errors; validation stopped after the first 100, listed before this one. Correct those and send it again.',
      extensions: { code: 'INVALID_REQUEST', status: 400 },
    });
  });

  it('answers queries over GET', async () => {
    const res = await t.fetch(`/graphql?query=${encodeURIComponent('{ categories { id } }')}`, { headers: { accept: 'application/json' } });
    expect((await res.json()).data.categories).toHaveLength(15);
  });
});
