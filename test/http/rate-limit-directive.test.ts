import SchemaBuilder from '@pothos/core';
import DirectivesPlugin from '@pothos/plugin-directives';
import { graphql, printSchema, type GraphQLSchema } from 'graphql';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errors';
import { errorHeaders } from '../../src/http/answer/error-headers';
import { rateLimitDirectiveFor } from '../../src/http/limits/rate-limit-directive';
import { createRateLimiters, type RateLimiters, type RateLimitState } from '../../src/http/limits/rate-limit';

interface Context {
  ip: string;
  keyId: string | undefined;
  states: RateLimitState[];
}

/** The wiring recipe for the lead: Pothos with the directives plugin, then the transformer. */
function buildSchema(limiters: RateLimiters, unordered: boolean): GraphQLSchema {
  const directives = rateLimitDirectiveFor<Context>(limiters, {
    bucketOf: (kind, context) => {
      if (kind === 'public') return context.ip;
      if (!context.keyId) throw new ApiError('UNAUTHORIZED', 'An API key is required.');
      return context.keyId;
    },
    onState: (state, context) => context.states.push(state),
  });
  const builder = new SchemaBuilder<{
    Context: Context;
    Directives: {
      publicRateLimit: { locations: 'OBJECT' | 'FIELD_DEFINITION'; args: Record<string, never> };
      keyRateLimit: { locations: 'OBJECT' | 'FIELD_DEFINITION'; args: Record<string, never> };
    };
  }>({ plugins: [DirectivesPlugin], directives: { useGraphQLToolsUnorderedDirectives: unordered } });
  let conversions = 0;
  builder.queryType({
    fields: (t) => ({
      units: t.int({ directives: { publicRateLimit: {} }, resolve: () => 154 }),
      convert: t.int({ directives: { keyRateLimit: {} }, resolve: () => ++conversions }),
      health: t.string({ resolve: () => 'ok' }),
    }),
  });
  return directives.transformer(builder.toSchema({ directives: directives.definitions }));
}

const opened: RateLimiters[] = [];
afterEach(async () => {
  for (const l of opened.splice(0)) await l.close();
});
const setUp = async (publicPerMinute = 3, keyPerSecond = 2) => {
  const limiters = await createRateLimiters({ publicPerMinute, keyPerSecond });
  opened.push(limiters);
  return limiters;
};
const run = (schema: GraphQLSchema, source: string, context: Partial<Context> = {}) =>
  graphql({ schema, source, contextValue: { ip: '203.0.113.7', keyId: 'key_1', states: [], ...context } });

describe.each([true, false])('@publicRateLimit and @keyRateLimit (Pothos, useGraphQLToolsUnorderedDirectives: %s)', (unordered) => {
  it('spends one request per annotated field and refuses the one over the limit with RATE_LIMIT_EXCEEDED', async () => {
    const schema = buildSchema(await setUp(), unordered);
    for (let i = 0; i < 2; i++) expect((await run(schema, '{ convert }')).errors).toBeUndefined();
    const refused = await run(schema, '{ convert }');
    const error = refused.errors?.[0]?.originalError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', status: 429 });
    expect(errorHeaders(error as ApiError)).toMatchObject({ 'Retry-After': '1', RateLimit: '"per-key";r=0;t=1' });
    expect(refused.data).toEqual({ convert: null });
  });

  it('counts by bucket: each key and each client IP has its own', async () => {
    const schema = buildSchema(await setUp(), unordered);
    await run(schema, '{ a: convert b: convert }');
    expect((await run(schema, '{ convert }', { keyId: 'key_2' })).errors).toBeUndefined();
    for (let i = 0; i < 3; i++) await run(schema, '{ units }');
    expect((await run(schema, '{ units }')).errors?.[0]?.originalError).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED' });
    expect((await run(schema, '{ units }', { ip: '2001:db8::/64' })).errors).toBeUndefined();
  });

  it('spends from the same counter as REST calls to consume()', async () => {
    const limiters = await setUp(60, 5);
    const schema = buildSchema(limiters, unordered);
    await run(schema, '{ convert }');
    await run(schema, '{ a: convert b: convert }');
    await expect(limiters.consume('key', 'key_1')).resolves.toMatchObject({ remaining: 1 });
  });

  it('leaves fields without a directive alone and reports the state of every spend', async () => {
    const schema = buildSchema(await setUp(), unordered);
    const states: RateLimitState[] = [];
    for (let i = 0; i < 5; i++) expect((await run(schema, '{ health }', { states })).errors).toBeUndefined();
    expect(states).toEqual([]);
    await run(schema, '{ units convert }', { states });
    expect(states.map((s) => [s.policy.name, s.remaining])).toEqual([
      ['per-ip', 2],
      ['per-key', 1],
    ]);
  });

  it('surfaces an error of bucketOf (no key) as is, spending nothing', async () => {
    const limiters = await setUp();
    const schema = buildSchema(limiters, unordered);
    const result = await run(schema, '{ convert }', { keyId: undefined });
    expect(result.errors?.[0]?.originalError).toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(limiters.consume('key', 'undefined')).resolves.toMatchObject({ remaining: 1 });
  });
});

describe('the printed schema', () => {
  it('declares both directives and does not depend on the configured limits', async () => {
    const [a, b] = [buildSchema(await setUp(60, 50), true), buildSchema(await setUp(5, 1), true)];
    expect(printSchema(a)).toBe(printSchema(b));
    expect(printSchema(a)).toMatch(/^directive @keyRateLimit on FIELD_DEFINITION \| OBJECT$/m);
    expect(printSchema(a)).toMatch(/^directive @publicRateLimit on FIELD_DEFINITION \| OBJECT$/m);
  });
});
