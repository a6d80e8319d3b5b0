import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NEXT_STEP } from '../../src/domain/errors';
import { currentMonth } from '../../src/domain/quota';
import { keyEnvFor } from '../../src/domain/keys';
import { createTestApp, type TestApp } from '../helpers/app';
import { frontServer, rawRequest } from '../helpers/http';
import { tableRates } from '../helpers/table-rates';

/** Made-up publications in the ECB's form (not ECB data): a Thursday and a Friday of January 2024. */
const PUBLICATIONS = [
  { date: '2024-01-04', rates: { USD: '1.0900', JPY: '157.00', GBP: '0.86000' } },
  { date: '2024-01-05', rates: { USD: '1.0921', JPY: '158.29', GBP: '0.85960' } },
];
const NOW = new Date('2024-01-08T12:00:00Z');
let t: TestApp;
let server: ReturnType<typeof frontServer>;
let origin: string;

beforeAll(async () => {
  t = await createTestApp({}, { rates: tableRates(PUBLICATIONS), clock: () => NOW });
  server = frontServer(t.app);
  origin = await server.origin();
});
afterAll(async () => {
  await server.close();
  await t.close();
});

async function connect(key: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  const client = new Client({ name: 'measurement-api-tests', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return { ...result, structured: result.structuredContent as Record<string, any> };
}

describe('the MCP endpoint over Streamable HTTP', () => {
  it('lists every tool as read-only and idempotent, with an input schema and a description', async () => {
    const client = await connect(await t.createKey('developer'));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['convert', 'rates', 'find_units', 'find_currencies', 'rate_series_summary']);
    for (const tool of tools) {
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true, destructiveHint: false });
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.description!.length).toBeGreaterThan(80);
    }
    const convert = tools.find((tool) => tool.name === 'convert')!;
    expect(convert.inputSchema.required).toEqual(['value', 'from', 'to']);
    await client.close();
  });

  it('converts units exactly: 12.5 inch is 31.75 cm', async () => {
    const client = await connect(await t.createKey());
    const answer = await call(client, 'convert', { value: '12.5', from: 'inch', to: 'cm' });
    expect(answer.isError).toBeFalsy();
    expect(answer.structured).toMatchObject({
      input: { value: '12.5', unit: 'inch' },
      result: { value: '31.75', unit: 'centimeter' },
      category: 'length',
      rate: null,
    });
    expect(answer.content).toEqual([{ type: 'text', text: '12.5 inch = 31.75 centimeter (length).' }]);
    await client.close();
  });

  it('converts a unit expression with currencies exactly, naming the publication: 0.25 EUR/kWh is 273.025 USD/MWh on 2024-01-05', async () => {
    const client = await connect(await t.createKey('developer'));
    const answer = await call(client, 'convert', { value: '0.25', from: 'EUR/kWh', to: 'USD/MWh', date: '2024-01-05' });
    expect(answer.structured).toMatchObject({
      result: { value: '273.025', unit: 'USD/megawatt_hour' },
      rate: { value: '1.0921', date: '2024-01-05', source: 'ecb' },
    });
    expect(answer.content[0]).toMatchObject({ text: expect.stringContaining('the ECB publication of 2024-01-05') });
    await client.close();
  });

  it('converts currencies on a Saturday with the Friday publication, and says why', async () => {
    const client = await connect(await t.createKey('developer'));
    const answer = await call(client, 'convert', { value: '100', from: 'USD', to: 'JPY', date: '2024-01-06', decimals: 2 });
    expect(answer.structured).toMatchObject({
      result: { value: '14494.09', unit: 'JPY' },
      rate: {
        date: '2024-01-05',
        resolved: { requested: '2024-01-06', publication: '2024-01-05', carriedForward: true, reason: 'weekend' },
      },
    });
    expect(answer.content[0]).toMatchObject({
      text: expect.stringContaining('2024-01-06 is a weekend, so the latest publication before it applies'),
    });
    await client.close();
  });

  it('answers a typo as a tool error with the parameter and the suggestion', async () => {
    const client = await connect(await t.createKey());
    const answer = await call(client, 'convert', { value: '1', from: 'kilometr', to: 'm' });
    expect(answer.isError).toBe(true);
    expect(answer.structured.error).toMatchObject({ code: 'UNKNOWN_UNIT', parameter: 'from', suggestions: ['kilometer'] });
    expect(answer.structured.error.whatToDo).toContain('find_units');
    await client.close();
  });

  it('answers a dimension mismatch as a tool error naming both dimensions', async () => {
    const client = await connect(await t.createKey());
    const answer = await call(client, 'convert', { value: '1', from: 'km/h', to: 'kg' });
    expect(answer.isError).toBe(true);
    expect(answer.structured.error).toMatchObject({
      code: 'INCOMPATIBLE_UNITS',
      parameter: 'to',
      dimensions: 'speed is length·time⁻¹, mass is mass',
    });
    await client.close();
  });

  it('says what to do when the plan refuses an argument', async () => {
    const client = await connect(await t.createKey('free'));
    const answer = await call(client, 'convert', { value: '1', from: 'USD', to: 'JPY', date: '2024-01-05' });
    expect(answer.isError).toBe(true);
    expect(answer.structured.error).toMatchObject({ code: 'PLAN_REQUIRED', parameter: 'date' });
    expect(answer.structured.error.whatToDo).toBe(NEXT_STEP.PLAN_REQUIRED);
    expect(answer.structured.error.message).toMatch(/Developer plan or higher.* To use it, ask the operator of this server/);
    // The next step is said once: the message ends with it.
    expect(answer.content).toEqual([{ type: 'text', text: `PLAN_REQUIRED: ${answer.structured.error.message}` }]);
    await client.close();
  });

  it('says what to do when the monthly quota is used up, and how long until it resets', async () => {
    const { key, account } = await t.createAccountKey('free');
    await t.store.consumeQuota(account.id, currentMonth(NOW), 1000, 1000);
    const client = await connect(key);
    const answer = await call(client, 'convert', { value: '1', from: 'mile', to: 'km' });
    expect(answer.isError).toBe(true);
    expect(answer.structured.error).toMatchObject({ code: 'QUOTA_EXCEEDED', retryAfterSeconds: 23 * 86400 + 12 * 3600 });
    expect(answer.structured.error.whatToDo).toBe(NEXT_STEP.QUOTA_EXCEEDED);
    expect(answer.structured.error.message.endsWith(NEXT_STEP.QUOTA_EXCEEDED)).toBe(true);
    await client.close();
  });

  it('charges one conversion for a delivered conversion and none for a failed one, as GraphQL does', async () => {
    const { key, account } = await t.createAccountKey('free');
    const used = () => t.store.monthlyUsage(account.id, currentMonth(NOW));
    const client = await connect(key);
    await client.listTools();
    expect(await used()).toBe(0);
    const delivered = await call(client, 'convert', { value: '1', from: 'mile', to: 'km' });
    expect(delivered.structured.cost).toEqual({ chargedConversions: 1, quotaRemaining: 999 });
    expect(await used()).toBe(1);
    await call(client, 'convert', { value: '1', from: 'mile', to: 'kg' });
    await call(client, 'rates', { symbols: 'USD' });
    expect(await used()).toBe(1);
    const graphql = await t.graphql('{ convert(value: "1", from: "mile", to: "km") { result { value } } }', {}, key);
    expect(graphql.body.extensions.cost.chargedConversions).toBe(1);
    expect(await used()).toBe(2);
    await client.close();
  });
});

describe('the other tools', () => {
  it('lists the rates of a day for a base, symbols given as one code or a list', async () => {
    const client = await connect(await t.createKey('developer'));
    const one = await call(client, 'rates', { date: '2024-01-05', symbols: 'JPY' });
    expect(one.structured).toMatchObject({ date: '2024-01-05', base: 'EUR', rates: { JPY: '158.29' } });
    const listed = await call(client, 'rates', { base: 'USD', symbols: ['EUR', 'GBP'], decimals: 4 });
    expect(listed.structured).toMatchObject({ date: '2024-01-05', base: 'USD', rates: { EUR: '0.9157', GBP: '0.7871' } });
    await client.close();
  });

  it('finds units by alias and by category, and currencies by code or name', async () => {
    const client = await connect(await t.createKey());
    const byAlias = await call(client, 'find_units', { query: 'metre' });
    expect(byAlias.structured.units.map((u: { id: string }) => u.id)).toContain('meter');
    const byCategory = await call(client, 'find_units', { category: 'speed' });
    expect(byCategory.structured.units.every((u: { category: string }) => u.category === 'speed')).toBe(true);
    const categories = await call(client, 'find_units', {});
    expect(categories.structured.categories).toHaveLength(15);
    const yen = await call(client, 'find_currencies', { query: 'yen' });
    expect(yen.structured.currencies.map((c: { code: string }) => c.code)).toEqual(['JPY']);
    expect(yen.content[0]).toMatchObject({ text: expect.stringMatching(/^1 currency: JPY /) });
    const francs = await call(client, 'find_currencies', { query: 'franc' });
    expect(francs.content[0]).toMatchObject({ text: expect.stringContaining('FRF French Franc (replaced by EUR on 1999-01-01)') });
    const usd = await call(client, 'find_currencies', { query: 'usd' });
    expect(usd.structured.currencies).toMatchObject([{ code: 'USD' }]);
    await client.close();
  });

  it("summarises a series as period means with each period's figures and the change over the range", async () => {
    const client = await connect(await t.createKey('developer'));
    const answer = await call(client, 'rate_series_summary', { start: '2024-01-01', end: '2024-01-07', symbols: 'USD', group: 'year' });
    expect(answer.structured).toMatchObject({
      group: 'year',
      entries: [{ period: '2024', publications: 2, rates: { USD: '1.09105' } }],
      truncated: false,
    });
    const percent = '0.1926605504587155963302752293577981651376';
    expect(answer.structured).toMatchObject({
      change: [
        {
          code: 'USD',
          start: '2024-01-04',
          startRate: '1.0900',
          end: '2024-01-05',
          endRate: '1.0921',
          change: '0.0021',
          changePercent: percent,
        },
      ],
      entries: [
        {
          figures: [
            { code: 'USD', first: '1.0900', last: '1.0921', min: '1.0900', max: '1.0921', change: '0.0021', changePercent: percent },
          ],
        },
      ],
    });
    expect((answer.content[0] as { text: string }).text).toBe(
      'Mean yearly rates per 1 EUR (ecb), 2024-01-04 to 2024-01-07:\n' +
        `2024: USD 1.09105 (first 1.0900, last 1.0921, change 0.0021 = ${percent} %, low 1.0900, high 1.0921)\n` +
        `Change over the range: USD 1.0900 (2024-01-04) to 1.0921 (2024-01-05): 0.0021 (${percent} %)`,
    );
    const free = await call(await connect(await t.createKey('free')), 'rate_series_summary', { start: '2024-01-01', symbols: 'USD' });
    expect(free.structured.error).toMatchObject({ code: 'PLAN_REQUIRED' });
    await client.close();
  });
});

describe('refusals at the endpoint', () => {
  const post = (headers: Record<string, string>) =>
    fetch(`${origin}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });

  it('answers 401 with a Bearer challenge and the contract body without a key, with the headers every answer carries', async () => {
    const res = await post({});
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="measurement-api"/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect((await res.json()).error).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    const metrics = await (await fetch(`${origin}/metrics`)).text();
    expect(metrics).toMatch(/measurement_http_requests_total\{[^}]*route="mcp"[^}]*status="401"[^}]*\} [1-9]/);
  });

  it('refuses a bad key with the contract body and a Bearer challenge that says why, advertising no OAuth for a client to start', async () => {
    const res = await post({ authorization: 'Bearer msr_test_0000000000000000000000000000000000000000000000000' });
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate')!;
    expect(challenge).toMatch(/^Bearer realm="measurement-api", error="invalid_token", error_description="[^"\\]+"$/);
    expect(challenge).toContain('/mcp takes an API key as a Bearer token; it offers no OAuth.');
    expect(challenge).not.toMatch(/resource_metadata|scope=/);
    expect((await res.json()).error).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    // Without a key, the bare challenge (RFC 6750: no error code when no credentials were sent).
    expect((await post({})).headers.get('www-authenticate')).toBe('Bearer realm="measurement-api"');
    // A client that looks for OAuth finds no metadata to start a flow with.
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-authorization-server',
    ]) {
      expect((await fetch(`${origin}${path}`)).status).toBe(404);
    }
  });

  it('refuses an expired key with KEY_EXPIRED and tells an expiring key its end in Key-Expires', async () => {
    const account = await t.store.createAccount({ plan: 'free' });
    const expired = await t.store.createKey(account.id, keyEnvFor(t.config.apiEnv), '2024-01-01T00:00:00Z');
    const refused = await post({ authorization: `Bearer ${expired.key}` });
    expect(refused.status).toBe(401);
    expect((await refused.json()).error.code).toBe('KEY_EXPIRED');
    const expiring = await t.store.createKey(account.id, keyEnvFor(t.config.apiEnv), '2024-02-01T00:00:00Z');
    const answered = await post({ authorization: `Bearer ${expiring.key}` });
    expect(answered.status).toBe(200);
    expect(answered.headers.get('key-expires')).toBe('Thu, 01 Feb 2024 00:00:00 GMT');
  });

  it('refuses a foreign Origin and an unknown Host (DNS rebinding), and answers GET with 405', async () => {
    const key = await t.createKey();
    expect((await post({ authorization: `Bearer ${key}`, origin: 'https://evil.example' })).status).toBe(403);
    expect((await post({ authorization: `Bearer ${key}`, origin })).status).toBe(200);
    const rebound = await rawRequest(
      origin,
      'POST',
      '/mcp',
      {
        host: 'evil.example',
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      '{}',
    );
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.text).error.code).toBe('FORBIDDEN');
    const get = await fetch(`${origin}/mcp`, { headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });
});

describe('the Origin check compares scheme, host and port', () => {
  const post = (base: string, key: string, headers: Record<string, string>) =>
    fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });

  it('refuses a page of the same host over another scheme or port, and takes its own origin and the allowed ones', async () => {
    const key = await t.createKey();
    const { host, port } = new URL(origin);
    expect((await post(origin, key, { origin: `https://${host}` })).status).toBe(403);
    expect((await post(origin, key, { origin: `http://127.0.0.1:${Number(port) + 1}` })).status).toBe(403);
    const refused = await post(origin, key, { origin: `https://${host}` });
    expect((await refused.json()).error.code).toBe('FORBIDDEN');
    expect((await post(origin, key, { origin })).status).toBe(200);
  });

  it('reads the scheme a trusted proxy reports (X-Forwarded-Proto), and matches MCP_ALLOWED_ORIGINS by origin', async () => {
    const proxied = await createTestApp(
      { TRUST_PROXY: '127.0.0.1/32', MCP_ALLOWED_ORIGINS: 'https://app.example:443' },
      { clock: () => NOW },
    );
    const front = frontServer(proxied.app);
    try {
      const key = await proxied.createKey();
      const base = await front.origin();
      const host = new URL(base).host;
      expect((await post(base, key, { origin: `https://${host}`, 'x-forwarded-proto': 'https' })).status).toBe(200);
      expect((await post(base, key, { origin: `http://${host}`, 'x-forwarded-proto': 'https' })).status).toBe(403);
      expect((await post(base, key, { origin: `https://${host}` })).status).toBe(403);
      expect((await post(base, key, { origin: 'https://app.example' })).status).toBe(200);
      expect((await post(base, key, { origin: 'http://app.example' })).status).toBe(403);
    } finally {
      await front.close();
      await proxied.close();
    }
  });
});

describe('the key rate limit at the endpoint', () => {
  it('spends one request per MCP request and refuses the next with 429, Retry-After and the contract body', async () => {
    const limited = await createTestApp({ KEY_RATE_LIMIT: '1' }, { clock: () => NOW });
    const front = frontServer(limited.app);
    try {
      const key = await limited.createKey();
      const base = await front.origin();
      const post = () =>
        fetch(`${base}/mcp`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        });
      const [first, second] = [await post(), await post()];
      expect(first.status).toBe(200);
      expect(second.status).toBe(429);
      expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect((await second.json()).error.code).toBe('RATE_LIMIT_EXCEEDED');
    } finally {
      await front.close();
      await limited.close();
    }
  });
});
