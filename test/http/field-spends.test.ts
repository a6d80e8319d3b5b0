import { execute, parse, type ExecutionResult } from 'graphql';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { GraphQLContext } from '../../src/graphql/context';
import { schema } from '../../src/graphql';
import { createRateLimiters, type RateLimiters } from '../../src/http/limits/rate-limit';
import { requestSpending } from '../../src/http/limits/request-spending';
import type { AppServices } from '../../src/services';
import { createNames } from '../../src/services/names';
import { HttpRequestContext } from '../../src/http/front/request-context';

/**
 * A rate-limited field that has nothing left to spend (the request's own spend paid for it) runs
 * its resolver as it is: no promise around it, so a document of such fields with synchronous
 * resolvers executes synchronously. A field that must spend goes through the library, which awaits
 * the limiter. On the app's schema, with the app's directive wiring.
 */
const opened: RateLimiters[] = [];
afterEach(async () => {
  for (const l of opened.splice(0)) await l.close();
});

const unused = () => Promise.reject(new Error('not used here'));
const services = { names: createNames() } as unknown as AppServices;

async function setUp() {
  const limiters = await createRateLimiters({ publicPerMinute: 60, keyPerSecond: 50 });
  opened.push(limiters);
  const spending = requestSpending({ limiters, metrics: { rateLimited: () => undefined }, refusals: { refused: () => undefined } });
  const executable = spending.fieldRateLimits.transformer(schema);
  const run = async (source: string, covers: 'request' | 'first-field') => {
    const requestContext = new HttpRequestContext(
      { authenticate: unused, loadPublications: unused, quotaState: unused },
      { authorization: null, clientBucket: () => '203.0.113.7' },
    );
    await spending.spendRequest(requestContext, 'public', covers);
    const contextValue: GraphQLContext = { requestContext, services, log: pino({ level: 'silent' }) };
    return { result: execute({ schema: executable, document: parse(source), contextValue }), requestContext };
  };
  return { run };
}

const isPromise = (value: unknown): value is Promise<unknown> => typeof (value as { then?: unknown } | null)?.then === 'function';

describe('a rate-limited field with nothing left to spend', () => {
  it('runs without a promise: the first field of a GraphQL document (prepaid before parse)', async () => {
    const { run } = await setUp();
    const { result, requestContext } = await run('{ categories { id } }', 'first-field');
    expect(isPromise(result)).toBe(false);
    expect((result as ExecutionResult).data?.categories).toHaveLength(15);
    expect(requestContext.rateLimitSpend.spent).toBe(1);
  });

  it('runs without a promise: every field of a request whose spend covers it (REST through SOFA, MCP)', async () => {
    const { run } = await setUp();
    const { result, requestContext } = await run('{ a: categories { id } b: categories { id } c: categories { id } }', 'request');
    expect(isPromise(result)).toBe(false);
    expect(Object.keys((result as ExecutionResult).data ?? {})).toEqual(['a', 'b', 'c']);
    expect(requestContext.rateLimitSpend.spent).toBe(1);
  });

  it('a field that must spend still goes through the limiter (a promise), and spends one request', async () => {
    const { run } = await setUp();
    const { result, requestContext } = await run('{ a: categories { id } b: categories { id } }', 'first-field');
    expect(isPromise(result)).toBe(true);
    expect(Object.keys((await result).data ?? {})).toEqual(['a', 'b']);
    expect(requestContext.rateLimitSpend).toMatchObject({ spent: 2, state: { policy: { name: 'per-ip' }, remaining: 58 } });
  });
});
