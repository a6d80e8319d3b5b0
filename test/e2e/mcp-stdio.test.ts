import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';
import { frontServer } from '../helpers/http';

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

/** The stdio server as `npm run --silent mcp` starts it, spawned by the SDK's own stdio client. */
async function spawnStdio(env: Record<string, string>): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'scripts/mcp-stdio.ts'],
    env,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'measurement-api-tests', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

describe('the stdio server', () => {
  it('lists the remote tools and calls them with the key', async () => {
    const client = await spawnStdio({ MEASUREMENT_API_URL: origin, MEASUREMENT_API_KEY: await t.createKey() });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('convert');
    expect(tools.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);
    const answer = (await client.callTool({ name: 'convert', arguments: { value: '12.5', from: 'inch', to: 'cm' } })) as CallToolResult;
    expect(answer.structuredContent).toMatchObject({ result: { value: '31.75', unit: 'centimeter' } });
    await client.close();
  });

  it('answers a call the remote server refuses (an unknown key) as a tool error', async () => {
    const client = await spawnStdio({
      MEASUREMENT_API_URL: `${origin}/mcp`,
      MEASUREMENT_API_KEY: 'msr_test_0000000000000000000000000000000000000000000000000',
    });
    const answer = (await client.callTool({ name: 'convert', arguments: { value: '1', from: 'm', to: 'ft' } })) as CallToolResult;
    expect(answer.isError).toBe(true);
    expect(answer.content[0]).toMatchObject({ text: expect.stringContaining('could not be reached or refused the call') });
    await client.close();
  });
});
