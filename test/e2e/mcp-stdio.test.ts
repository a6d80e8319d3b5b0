import { createServer } from 'node:net';
import { Client, type CallToolResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';
import { frontServer } from '../helpers/http';
import { built } from '../helpers/built';

let t: TestApp;
let server: ReturnType<typeof frontServer>;
let origin: string;

beforeAll(async () => {
  t = await createTestApp();
  server = frontServer(t.app);
  origin = await server.origin();
});
afterAll(async () => {
  await server.close();
  await t.close();
});

/** The stdio server as `npm run --silent mcp` starts it, spawned by the SDK's own stdio client (2025 handshake, or 2026-07-28 when pinned). */
async function spawnStdio(env: Record<string, string>, pin?: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [built('mcp-stdio')],
    env,
    stderr: 'pipe',
  });
  const client = new Client(
    { name: 'measurement-api-tests', version: '1.0.0' },
    pin === undefined ? {} : { versionNegotiation: { mode: { pin } } },
  );
  await client.connect(transport);
  return client;
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const UNKNOWN_KEY = 'msr_test_0000000000000000000000000000000000000000000000000';

describe('the stdio server', () => {
  it('lists the remote tools and calls them with the key, under the 2025 handshake and under 2026-07-28', async () => {
    const key = await t.createKey();
    for (const pin of [undefined, '2026-07-28']) {
      const client = await spawnStdio({ MEASUREMENT_API_URL: origin, MEASUREMENT_API_KEY: key }, pin);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('convert');
      expect(tools.every((tool) => tool.annotations?.readOnlyHint === true && tool.outputSchema !== undefined)).toBe(true);
      const answer = (await client.callTool({ name: 'convert', arguments: { value: '12.5', from: 'inch', to: 'cm' } })) as CallToolResult;
      expect(answer.structuredContent).toMatchObject({ result: { value: '31.75', unit: 'centimeter' } });
      await client.close();
    }
  });

  it('answers a call the remote server refuses (an unknown key) as a tool error naming the URL, and still lists the tools', async () => {
    const client = await spawnStdio({ MEASUREMENT_API_URL: `${origin}/mcp`, MEASUREMENT_API_KEY: UNKNOWN_KEY });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['convert', 'rates', 'find_units', 'find_currencies', 'rate_series_summary']);
    const answer = (await client.callTool({ name: 'convert', arguments: { value: '1', from: 'm', to: 'ft' } })) as CallToolResult;
    expect(answer.isError).toBe(true);
    expect(answer.content[0]).toMatchObject({
      text: expect.stringContaining(`The Measurement API at ${origin}/mcp refused the key (401): check MEASUREMENT_API_KEY`),
    });
    await client.close();
  });

  it('answers a call to a server that cannot be reached as a tool error naming the URL, and still lists the tools', async () => {
    const unreachable = `http://127.0.0.1:${await closedPort()}`;
    const client = await spawnStdio({ MEASUREMENT_API_URL: unreachable, MEASUREMENT_API_KEY: UNKNOWN_KEY });
    expect((await client.listTools()).tools).toHaveLength(5);
    const answer = (await client.callTool({ name: 'rates', arguments: {} })) as CallToolResult;
    expect(answer.isError).toBe(true);
    const text = (answer.content[0] as { text: string }).text;
    expect(text).toContain(`The Measurement API at ${unreachable}/mcp could not be reached`);
    expect(text).toContain('ECONNREFUSED');
    await client.close();
  });
});
