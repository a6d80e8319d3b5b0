import { afterEach, describe, expect, it } from 'vitest';
import { documentHash } from '../../src/domain/persisted-query';
import { DOCUMENT_BYTES_PER_REQUEST, textPrice } from '../../src/graphql/price';
import { createTestApp, type TestApp } from '../helpers/app';
import { rawRequest } from '../helpers/http';

/**
 * A GraphQL document spends its price (src/graphql/price.ts) of its key's limit, or of its client
 * IP's, before anything executes: public fields and list items included, by POST, by GET and by a
 * persisted document's hash alike; past what the window has left it is refused whole
 * (RATE_LIMIT_EXCEEDED, Retry-After), and over the whole limit it is INVALID_REQUEST.
 */
const opened: TestApp[] = [];
afterEach(async () => {
  for (const t of opened.splice(0)) await t.close();
});

const aliases = (n: number, field: string) => `{${Array.from({ length: n }, (_, i) => `a${i}:${field}`).join(' ')}}`;

async function setUp(env: Record<string, string>) {
  const t = await createTestApp(env);
  opened.push(t);
  const headersOf = (key: string | undefined, accept = 'application/graphql-response+json') => ({
    accept,
    ...(key ? { authorization: `Bearer ${key}` } : {}),
  });
  const answerOf = (answer: { status: number; headers: Headers; text: string }) => ({
    status: answer.status,
    headers: answer.headers,
    body: JSON.parse(answer.text),
  });
  const post = async (body: object, key?: string) =>
    answerOf(
      await rawRequest(t.origin, 'POST', '/graphql', { 'content-type': 'application/json', ...headersOf(key) }, JSON.stringify(body)),
    );
  const get = async (params: Record<string, unknown>, key?: string) => {
    const search = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
    return answerOf(await rawRequest(t.origin, 'GET', `/graphql?${search}`, headersOf(key)));
  };
  return { t, post, get };
}

describe('the price of a GraphQL document, spent before it executes', () => {
  it("spends a keyed request's public fields of the key's limit, one request each", async () => {
    const { t, post } = await setUp({ KEY_RATE_LIMIT: '50' });
    const key = await t.createKey('free');
    const { status, body } = await post({ query: '{ a: units { id } b: units { id } categories { id } }' }, key);
    expect(status).toBe(200);
    expect(body.extensions.cost).toEqual({ requestedConversions: 0, chargedConversions: 0, requests: 3 });
    expect(body.extensions.rateLimit).toMatchObject({ policy: 'per-key', remaining: 47 });
  });

  it('refuses a document whose price is over what the window has left, whole and before it runs, with Retry-After', async () => {
    const { t, post } = await setUp({ KEY_RATE_LIMIT: '10' });
    const key = await t.createKey('free');
    const six = aliases(6, 'unit(id: "ft") { id }');
    expect((await post({ query: six }, key)).body.extensions.rateLimit.remaining).toBe(4);
    const { status, headers, body } = await post({ query: six }, key);
    expect(status).toBe(429);
    expect(headers.get('retry-after')).toMatch(/^\d+$/);
    expect(body.data).toBeUndefined();
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0].extensions.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(body.errors[0].message).toMatch(
      /^The document costs 6 requests of the rate limit .*, more than the window has left\. Too many requests/,
    );
    expect(body.extensions.cost.requests).toBe(6);
  });

  it("refuses a document whose price is over the whole limit as INVALID_REQUEST, having spent its text's price", async () => {
    const { t, post } = await setUp({ KEY_RATE_LIMIT: '50' });
    const key = await t.createKey('free');
    const query = aliases(990, 'units{id}');
    expect(textPrice(query)).toBe(15);
    const { status, body } = await post({ query }, key);
    expect(status).toBe(400);
    expect(body.data).toBeUndefined();
    expect(body.errors[0].extensions.code).toBe('INVALID_REQUEST');
    expect(body.errors[0].message).toMatch(
      /^The document costs 990 requests of the rate limit .*; at most 50 a second per API key can be spent/,
    );
    expect(body.extensions.cost.requests).toBe(990);
    expect(body.extensions.rateLimit.remaining).toBe(50 - 15);
  });

  it('spends a text of its price by its length before parsing it: distinct large documents from a free key are refused unparsed', async () => {
    const { t, post } = await setUp({ KEY_RATE_LIMIT: '50' });
    const key = await t.createKey('free');
    // Nine KiB each, every one distinct, and none parses: what a parse would answer shows it ran.
    const broken = (n: number) => `# ${n}\n${'#'.repeat(9 * DOCUMENT_BYTES_PER_REQUEST - 20)}\n{ units { id `;
    expect(textPrice(broken(0))).toBe(9);
    const first = await post({ query: broken(0) }, key);
    expect(first.body.errors[0].message).toMatch(/^Syntax Error/);
    expect(first.body.extensions.cost.requests).toBe(9);
    expect(first.body.extensions.rateLimit.remaining).toBe(41);
    const answers = [];
    for (let n = 1; n <= 5; n++) answers.push(await post({ query: broken(n) }, key));
    const messages = answers.map(({ body }) => body.errors[0].message as string);
    // 50 requests a second buy five such texts: the sixth is refused before it is parsed.
    expect(messages.slice(0, 4).every((message) => message.startsWith('Syntax Error'))).toBe(true);
    expect(answers[4]!.body.errors[0].extensions.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(answers[4]!.status).toBe(429);
    expect(answers[4]!.body.errors[0].message).toMatch(/^The document's text costs 9 requests of the rate limit \(one per 1,024 bytes/);
  });

  it('a short document costs what its fields cost: its text costs one request per 1,024 bytes, at least one', async () => {
    const { t, post } = await setUp({ KEY_RATE_LIMIT: '50' });
    const key = await t.createKey('free');
    const padded = `{ units { id } }\n#${' '.repeat(3 * DOCUMENT_BYTES_PER_REQUEST)}`;
    expect((await post({ query: '{ units { id } }' }, key)).body.extensions.cost.requests).toBe(1);
    expect((await post({ query: padded }, key)).body.extensions.cost.requests).toBe(textPrice(padded));
    expect(textPrice(padded)).toBe(4);
  });

  it("spends a persisted document's price by GET and by hash, as the document sent by POST", async () => {
    const { t, post, get } = await setUp({ KEY_RATE_LIMIT: '100' });
    const key = await t.createKey('free');
    const query = aliases(20, 'units { id }');
    const extensions = { persistedQuery: { version: 1, sha256Hash: documentHash(query) } };
    const sent = await post({ query, extensions }, key);
    expect(sent.body.extensions.rateLimit.remaining).toBe(80);
    const byHash = await get({ extensions }, key);
    expect(byHash.status).toBe(200);
    expect(byHash.body.extensions.cost.requests).toBe(20);
    const third = await get({ extensions }, key);
    expect(third.body.extensions.cost.requests).toBe(20);
    // A cacheable answer leaves the counters out of its body; the RateLimit header has them.
    expect(third.headers.get('ratelimit')).toBe('"per-key";r=40;t=1');
  });

  it("spends a keyless document's price of the client IP's limit", async () => {
    const { post } = await setUp({ PUBLIC_RATE_LIMIT: '30' });
    const first = await post({ query: aliases(12, 'categories { id }') });
    expect(first.body.extensions.rateLimit).toMatchObject({ policy: 'per-ip', remaining: 18 });
    const second = await post({ query: aliases(12, 'categories { id }') });
    expect(second.body.extensions.rateLimit.remaining).toBe(6);
    const refused = await post({ query: aliases(12, 'categories { id }') });
    expect(refused.status).toBe(429);
    expect(refused.body.errors[0].extensions.code).toBe('RATE_LIMIT_EXCEEDED');
  });
});
