import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';
import { frontServer } from '../helpers/http';
import { tableRates } from '../helpers/table-rates';

/** Made-up publications in the ECB's form (not ECB data): a Thursday and a Friday of January 2024. */
const PUBLICATIONS = [
  { date: '2024-01-04', rates: { USD: '1.0900', JPY: '157.00', GBP: '0.86000' } },
  { date: '2024-01-05', rates: { USD: '1.0921', JPY: '158.29', GBP: '0.85960' } },
];
const NOW = new Date('2024-01-08T12:00:00Z');
const MODERN = '2026-07-28';
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

/** What went over the wire: each POST's method and the content type of its answer. */
interface Exchange {
  method: string;
  status: number;
  contentType: string | null;
  sessionId: string | null;
}

function recordingFetch(exchanges: Exchange[]) {
  return async (url: string | URL, init?: RequestInit) => {
    const res = await fetch(url, init);
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : { method: init?.method ?? 'GET' };
    exchanges.push({
      method: body.method ?? '',
      status: res.status,
      contentType: res.headers.get('content-type'),
      sessionId: res.headers.get('mcp-session-id'),
    });
    return res;
  };
}

/** The v2 SDK client pinned to 2026-07-28: server/discover, then every request with its own `_meta` envelope. */
async function modernClient(key: string, exchanges: Exchange[] = []): Promise<ModernClient> {
  const transport = new ModernTransport(new URL(`${origin}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    fetch: recordingFetch(exchanges),
  });
  const client = new ModernClient({ name: 'measurement-api-tests', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
  await client.connect(transport);
  return client;
}

/** The v1 SDK client (1.32), which opens with `initialize` at 2025-11-25. */
async function legacyClient(key: string, exchanges: Exchange[] = []): Promise<LegacyClient> {
  const transport = new LegacyTransport(new URL(`${origin}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    fetch: recordingFetch(exchanges),
  });
  const client = new LegacyClient({ name: 'measurement-api-tests', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** One JSON-RPC request, with the headers a client of its revision sends (2026-07-28: Mcp-Method, and Mcp-Name for a call). */
function post(
  key: string,
  message: { jsonrpc: string; id: string | number; method: string; params?: Record<string, unknown> },
  version: string,
) {
  const headers: Record<string, string> = {
    authorization: `Bearer ${key}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': version,
  };
  if (version === MODERN) headers['mcp-method'] = message.method;
  if (version === MODERN && typeof message.params?.['name'] === 'string') headers['mcp-name'] = message.params['name'];
  return fetch(`${origin}/mcp`, { method: 'POST', headers, body: JSON.stringify(message) });
}

const envelope = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };

type AnyClient = Pick<ModernClient, 'callTool' | 'listTools'>;
const structured = async (client: AnyClient, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as { structuredContent?: Record<string, any>; isError?: boolean };

describe('revision 2026-07-28, with the v2 SDK client', () => {
  it('answers server/discover with the revision, honest capabilities, the instructions and cache hints', async () => {
    const res = await post(
      await t.createKey(),
      { jsonrpc: '2.0', id: 'd', method: 'server/discover', params: { _meta: envelope } },
      MODERN,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const { result } = await res.json();
    expect(result).toMatchObject({
      resultType: 'complete',
      supportedVersions: [MODERN],
      capabilities: { tools: { listChanged: false } },
      ttlMs: 600_000,
      cacheScope: 'public',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'measurement-api' } },
    });
    expect(result.instructions).toContain('convert');
  });

  it('lists the tools with cache hints and calls convert and rates, without initialize or a session, each answer JSON', async () => {
    const exchanges: Exchange[] = [];
    const client = await modernClient(await t.createKey('developer'), exchanges);
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: false } });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['convert', 'rates', 'find_units', 'find_currencies', 'rate_series_summary']);
    for (const tool of tools) expect(tool.outputSchema?.type).toBe('object');
    const converted = await structured(client, 'convert', { value: '100', from: 'USD', to: 'JPY', date: '2024-01-06', decimals: 2 });
    expect(converted.structuredContent).toMatchObject({ result: { value: '14494.09', unit: 'JPY' }, rate: { date: '2024-01-05' } });
    const rates = await structured(client, 'rates', { symbols: 'JPY' });
    expect(rates.structuredContent).toMatchObject({ date: '2024-01-05', rates: { JPY: '158.29' } });
    expect(exchanges.map((exchange) => exchange.method)).toEqual(['server/discover', 'tools/list', 'tools/call', 'tools/call']);
    expect(exchanges.every((e) => e.status === 200 && /^application\/json/.test(e.contentType ?? '') && e.sessionId === null)).toBe(true);
    const listed = await post(await t.createKey(), { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope } }, MODERN);
    expect((await listed.json()).result).toMatchObject({ ttlMs: 600_000, cacheScope: 'public' });
    await client.close();
  });

  it('ends a subscriptions/listen at once, acknowledging nothing: the tool list never changes while the server runs', async () => {
    const listen = {
      jsonrpc: '2.0',
      id: 'l',
      method: 'subscriptions/listen',
      params: { notifications: { toolsListChanged: true }, _meta: envelope },
    };
    const res = await post(await t.createKey(), listen, MODERN);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('"method":"notifications/subscriptions/acknowledged","params":{"notifications":{}');
    expect(text).toContain('"id":"l","result":{"resultType":"complete"');
  });
});

describe('revision 2025-11-25, with the v1 SDK client', () => {
  it('opens with initialize, lists the tools and calls convert and rates, statelessly and in JSON', async () => {
    const exchanges: Exchange[] = [];
    const client = await legacyClient(await t.createKey('developer'), exchanges);
    expect(client.getServerVersion()?.name).toBe('measurement-api');
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(5);
    const converted = await structured(client as unknown as AnyClient, 'convert', { value: '12.5', from: 'inch', to: 'cm' });
    expect(converted.structuredContent).toMatchObject({ result: { value: '31.75', unit: 'centimeter' } });
    const rates = await structured(client as unknown as AnyClient, 'rates', { base: 'USD', symbols: ['GBP'], decimals: 4 });
    expect(rates.structuredContent).toMatchObject({ base: 'USD', rates: { GBP: '0.7871' } });
    // The client also tries to open the GET stream a stateless server does not have (405).
    expect(exchanges.map((exchange) => exchange.method)).toEqual([
      'initialize',
      'notifications/initialized',
      'GET',
      'tools/list',
      'tools/call',
      'tools/call',
    ]);
    expect(exchanges.find((e) => e.method === 'GET')?.status).toBe(405);
    expect(
      exchanges.filter((e) => e.status === 200).every((e) => /^application\/json/.test(e.contentType ?? '') && e.sessionId === null),
    ).toBe(true);
    await client.close();
  });
});

describe('the rough edges, under both revisions', () => {
  it('declares tools.listChanged false, as the server asks', async () => {
    const legacy = await legacyClient(await t.createKey());
    expect(legacy.getServerCapabilities()).toEqual({ tools: { listChanged: false } });
    await legacy.close();
    const modern = await modernClient(await t.createKey());
    expect(modern.getServerCapabilities()?.tools?.listChanged).toBe(false);
    await modern.close();
  });

  it.each([
    ['2025-11-25', {}],
    [MODERN, { _meta: envelope }],
  ])('answers an unknown tool under %s with the JSON-RPC error -32602, not a tool result', async (version, extra) => {
    const res = await post(
      await t.createKey(),
      { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'nope', arguments: {}, ...extra } },
      version,
    );
    const body = await res.json();
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 9, error: { code: -32602, message: expect.stringContaining('nope') } });
    expect(body.result).toBeUndefined();
  });

  it('types value as a decimal string and refuses a JSON number as the contract does, naming the parameter', async () => {
    const client = await modernClient(await t.createKey());
    const { tools } = await client.listTools();
    const convert = tools.find((tool) => tool.name === 'convert')!;
    expect((convert.inputSchema.properties as Record<string, { type: unknown }>).value!.type).toBe('string');
    const refused = await structured(client, 'convert', { value: 12.5, from: 'inch', to: 'cm' });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent!.error).toMatchObject({ code: 'INVALID_REQUEST', parameter: 'value' });
    expect(refused.structuredContent!.error.message).toContain('not a JSON number');
    const missing = await structured(client, 'convert', { value: '1', from: 'inch' });
    expect(missing.structuredContent!.error).toMatchObject({ code: 'INVALID_REQUEST', parameter: 'to' });
    await client.close();
  });

  it('refuses rate_series_summary with more than 5 currencies, naming the limit, rather than cutting them silently', async () => {
    const client = await modernClient(await t.createKey('developer'));
    for (const symbols of ['USD,JPY,GBP,CHF,SEK,NOK', ['USD', 'JPY', 'GBP', 'CHF', 'SEK', 'NOK', 'DKK']]) {
      const refused = await structured(client, 'rate_series_summary', { start: '2024-01-01', end: '2024-01-07', symbols });
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent!.error).toMatchObject({ code: 'INVALID_REQUEST', parameter: 'symbols' });
      expect(refused.structuredContent!.error.message).toMatch(/names [67] currencies; a summary takes at most 5/);
    }
    const five = await structured(client, 'rate_series_summary', { start: '2024-01-01', end: '2024-01-07', symbols: 'USD,JPY,GBP' });
    expect(five.structuredContent).toMatchObject({ symbols: ['USD', 'JPY', 'GBP'], truncated: false });
    await client.close();
  });
});

describe('output schemas', () => {
  /** A call of each tool for each kind of answer it gives, and a refusal of each. */
  const CALLS: [string, Record<string, unknown>][] = [
    ['convert', { value: '12.5', from: 'inch', to: 'cm' }],
    ['convert', { value: '100', from: 'USD', to: 'JPY', date: '2024-01-06' }],
    ['convert', { value: '0.25', from: 'EUR/kWh', to: 'USD/MWh' }],
    ['convert', { value: '1', from: 'kilometr', to: 'm' }],
    ['rates', { symbols: 'JPY,GBP' }],
    ['rates', { base: 'USD', amount: '250', date: '2024-01-06' }],
    ['rates', { date: 'yesterday' }],
    ['find_units', {}],
    ['find_units', { query: 'metre' }],
    ['find_units', { category: 'no-such-category' }],
    ['find_currencies', { query: 'franc' }],
    ['find_currencies', { query: 'zzz' }],
    ['find_currencies', { query: 5 }],
    ['rate_series_summary', { start: '2024-01-01', end: '2024-01-07', symbols: 'USD,JPY', group: 'week' }],
    ['rate_series_summary', { start: '2024-01-01', symbols: 'USD,JPY,GBP,CHF,SEK,NOK' }],
  ];

  it('gives every tool an output schema that each of its structured results matches (Ajv, JSON Schema 2020-12)', async () => {
    const client = await modernClient(await t.createKey('developer'));
    const { tools } = await client.listTools();
    const ajv = new Ajv2020({ strict: false });
    const validators = new Map(tools.map((tool) => [tool.name, ajv.compile(tool.outputSchema!)]));
    expect(validators.size).toBe(5);
    const seen = new Set<string>();
    for (const [name, args] of CALLS) {
      const result = await structured(client, name, args);
      expect(result.structuredContent, `${name} ${JSON.stringify(args)}`).toBeDefined();
      const validate = validators.get(name)!;
      expect(validate(result.structuredContent), `${name} ${JSON.stringify(args)}: ${ajv.errorsText(validate.errors)}`).toBe(true);
      seen.add(`${name}:${result.isError === true}`);
    }
    for (const tool of tools) expect([...seen]).toEqual(expect.arrayContaining([`${tool.name}:false`, `${tool.name}:true`]));
    await client.close();
  });
});
