import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';
import { rawRequest } from '../helpers/http';

/**
 * Every GraphQL request spends one request of its IP's public limit before its document is parsed,
 * unless it spends its key's: a document that resolves no rate-limited field (`__typename`,
 * introspection, one that does not validate) is no way around the limit. Over loopback, through
 * the node:http front main.ts runs, with REST routes executed directly and by SOFA (REST_EXECUTION=sofa);
 * GraphQL requests are run by the front's executor in both.
 */
const opened: TestApp[] = [];
afterEach(async () => {
  for (const t of opened.splice(0)) await t.close();
});

const EXECUTIONS = { direct: {}, reference: { REST_EXECUTION: 'sofa' } };

async function setUp(executions: keyof typeof EXECUTIONS, env: Record<string, string>) {
  const t = await createTestApp({ ...EXECUTIONS[executions], ...env });
  opened.push(t);
  const origin = t.origin;
  const graphql = async (query: string, options: { key?: string; accept?: string } = {}) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: options.accept ?? 'application/json' };
    if (options.key) headers['authorization'] = `Bearer ${options.key}`;
    const answer = await rawRequest(origin, 'POST', '/graphql', headers, JSON.stringify({ query }));
    return { status: answer.status, headers: answer.headers, body: JSON.parse(answer.text) };
  };
  const rest = (target: string) => rawRequest(origin, 'GET', target, {});
  return { t, graphql, rest };
}

describe.each(['direct', 'reference'] as const)('GraphQL requests and the per-IP limit (%s executions)', (executions) => {
  it('spends one request for a document of __typename alone, and refuses the one past the limit', async () => {
    const { graphql } = await setUp(executions, { PUBLIC_RATE_LIMIT: '3' });
    for (let i = 0; i < 3; i++) {
      const { body } = await graphql('{ __typename }');
      expect(body.data).toEqual({ __typename: 'Query' });
      // The answer reports the IP's limit it spent from, as the RateLimit headers do.
      expect(body.extensions.cost).toEqual({ requestedConversions: 0, chargedConversions: 0, requests: 1 });
      expect(body.extensions.rateLimit).toMatchObject({ policy: 'per-ip', limit: 3, remaining: 2 - i });
    }
    const refused = await graphql('{ __typename }');
    expect(refused.status).toBe(200);
    expect(refused.body.data).toBeUndefined();
    expect(refused.body.errors).toHaveLength(1);
    expect(refused.body.errors[0].extensions).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', status: 429 });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const spec = await graphql('{ __typename }', { accept: 'application/graphql-response+json' });
    expect(spec.status).toBe(429);
    expect(Number(spec.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('refuses an IP that REST refused, before parsing: a broken or over-limit document gets the same 429', async () => {
    const { graphql, rest } = await setUp(executions, { PUBLIC_RATE_LIMIT: '2' });
    expect((await rest('/v1/units/ft')).status).toBe(200);
    expect((await rest('/v1/units/ft')).status).toBe(200);
    expect((await rest('/v1/units/ft')).status).toBe(429);
    for (const query of ['{ __typename }', '{ __schema { queryType { name } } }', '{ nope', `{ ${'a: __typename '.repeat(3)} }`]) {
      const { body } = await graphql(query);
      expect(body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual(['RATE_LIMIT_EXCEEDED']);
    }
  });

  it('counts a document of one public field once, and each further public field once more', async () => {
    const { graphql, rest } = await setUp(executions, { PUBLIC_RATE_LIMIT: '4' });
    expect((await graphql('{ unit(id: "m") { id } }')).body.data.unit.id).toBe('meter');
    expect((await graphql('{ a: unit(id: "m") { id } b: unit(id: "ft") { id } }')).body.data.b.id).toBe('foot');
    expect((await rest('/v1/units/ft')).status).toBe(200);
    expect((await rest('/v1/units/ft')).status).toBe(429);
  });

  it("spends a valid key's limit instead of the IP's, and the IP's when the key does not authenticate", async () => {
    const { t, graphql } = await setUp(executions, { PUBLIC_RATE_LIMIT: '2', KEY_RATE_LIMIT: '1000' });
    const key = await t.createKey();
    for (let i = 0; i < 5; i++) {
      const { body } = await graphql('{ __typename }', { key });
      expect(body.data).toEqual({ __typename: 'Query' });
      expect(body.extensions.rateLimit).toMatchObject({ policy: 'per-key', limit: 1000 });
    }
    const bogus = 'msr_test_0000000000000000000000000000000000000000000000000';
    expect((await graphql('{ __typename }', { key: bogus })).body.data).toEqual({ __typename: 'Query' });
    expect((await graphql('{ __typename }')).body.data).toEqual({ __typename: 'Query' });
    expect((await graphql('{ __typename }', { key: bogus })).body.errors[0].extensions.code).toBe('RATE_LIMIT_EXCEEDED');
  });

  it("refuses a key past its own limit, and then spends nothing of the IP's", async () => {
    const { t, graphql } = await setUp(executions, { PUBLIC_RATE_LIMIT: '1', KEY_RATE_LIMIT: '1' });
    const key = await t.createKey();
    expect((await graphql('{ __typename }', { key })).body.data).toEqual({ __typename: 'Query' });
    const refused = await graphql('{ __typename }', { key });
    expect(refused.body.errors[0].extensions).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', status: 429 });
    expect((await graphql('{ __typename }')).body.data).toEqual({ __typename: 'Query' });
  });
});
