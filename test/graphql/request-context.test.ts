import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';

/** A logger whose JSON lines the test reads back. */
function capturedLogger() {
  const lines: Record<string, any>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: pino({ level: 'info' }, stream) };
}

const log = capturedLogger();
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ KEY_RATE_LIMIT: '3' }, { logger: log.logger });
});
afterAll(() => t.close());

const post: TestApp['postGraphQL'] = (query, options) => t.postGraphQL(query, options);

const CONVERT = 'convert(value: "3", from: "ft", to: "m") { result { value } }';

describe('one request context for REST and GraphQL', () => {
  it('gives keyed GraphQL answers the quota and rate-limit headers that REST sends', async () => {
    const key = await t.createKey();
    const graphql = await post(`{ ${CONVERT} }`, { key });
    expect(graphql.body.data.convert.result.value).toBe('0.9144');
    expect(graphql.headers.get('x-quota-limit')).toBe('1000');
    expect(graphql.headers.get('x-quota-remaining')).toBe('999');
    expect(graphql.headers.get('ratelimit-policy')).toBe('"per-key";q=3;w=1');
    expect(graphql.headers.get('ratelimit')).toMatch(/^"per-key";r=2;t=1$/);
    const rest = await t.call('GET', '/v1/convert?value=3&from=ft&to=m', { key });
    expect(rest.headers.get('x-quota-remaining')).toBe('998');
    expect([...graphql.headers.keys()].filter((h) => /quota|ratelimit/.test(h)).sort()).toEqual(
      [...rest.headers.keys()].filter((h) => /quota|ratelimit/.test(h)).sort(),
    );
  });

  it('reports the per-IP limit, and no quota, on a document of public fields', async () => {
    const { headers } = await post('{ unit(id: "ft") { id } }');
    expect(headers.get('ratelimit-policy')).toBe('"per-ip";q=60;w=60');
    expect(headers.get('x-quota-limit')).toBeNull();
  });

  it('sends Retry-After when a document was refused with a 429 code', async () => {
    const key = await t.createKey();
    const first = await post(`{ a: ${CONVERT} b: ${CONVERT} }`, { key });
    expect(first.body.data.a.result.value).toBe('0.9144');
    // The second document's price, 2 requests, is more than the window has left (1 of 3).
    const { status, headers, body } = await post(`{ a: ${CONVERT} b: ${CONVERT} }`, { key });
    expect(status).toBe(200);
    expect(body.errors.map((e: any) => e.extensions.code)).toEqual(['RATE_LIMIT_EXCEEDED']);
    expect(body.data).toBeUndefined();
    expect(headers.get('retry-after')).toBe('1');
  });

  it('logs each GraphQL request once, with the key id and its real duration', async () => {
    const { key, keyId } = await t.createAccountKey();
    const before = log.lines.length;
    const { headers } = await post(`{ ${CONVERT} }`, { key });
    const lines = log.lines.slice(before).filter((l) => l.msg === 'request');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ method: 'POST', path: '/graphql', status: 200, keyId, requestId: headers.get('x-request-id') });
    expect(lines[0]!.ms).toBeGreaterThan(0);
    expect(JSON.stringify(log.lines)).not.toContain(key);
  });
});

describe('GraphQL over HTTP statuses', () => {
  const RESPONSE_JSON = 'application/graphql-response+json';
  it.each([
    ['a syntax error', '{ units { id ', 400],
    ['an unknown field', '{ nosuchfield }', 400],
    [
      'a document over 1,000 conversions',
      'query($items: [BatchItemInput!]!) { a: batch(items: $items) { succeeded } b: batch(items: $items) { failed } }',
      400,
    ],
    ['a partial result (data present)', '{ unit(id: "nope") { id } categories { id } }', 200],
  ])('answers %s with %i under application/graphql-response+json, and 200 under application/json', async (_, query, status) => {
    const variables = { items: Array.from({ length: 501 }, () => ({ value: '1', from: 'm', to: 'ft' })) };
    const strict = await post(query, { accept: RESPONSE_JSON, variables });
    expect(strict.status).toBe(status);
    expect(strict.headers.get('content-type')).toMatch(/^application\/graphql-response\+json/);
    expect(strict.body.errors[0].extensions.code).toMatch(/INVALID_REQUEST|NOT_FOUND/);
    const plain = await post(query, { accept: 'application/json', variables });
    expect(plain.status).toBe(200);
    expect(plain.body.errors[0].extensions.code).toBe(strict.body.errors[0].extensions.code);
  });
});
