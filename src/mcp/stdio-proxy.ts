import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { API_TITLE, API_VERSION } from '../version';
import { MCP_PATH } from '../http/routes';
import { INSTRUCTIONS } from './server';

/** Where the stdio server sends its calls: MEASUREMENT_API_URL (the server, or its /mcp URL) and MEASUREMENT_API_KEY. */
export interface RemoteServer {
  url: URL;
  key: string;
}

const remoteEnv = z.object({
  MEASUREMENT_API_URL: z.url({ protocol: /^https?$/ }),
  MEASUREMENT_API_KEY: z.string().regex(/^msr_(live|test)_[0-9A-Za-z]+$/, 'must be an API key (msr_live_... or msr_test_...)'),
});

/** The remote server from the environment; an Error naming the variable when one is missing or wrong. */
export function remoteServerOf(env: Record<string, string | undefined>): RemoteServer {
  const parsed = remoteEnv.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${String(issue.path[0])} ${issue.message.replace(/^Invalid input: /, '').toLowerCase()}`);
  }
  const url = new URL(parsed.data.MEASUREMENT_API_URL);
  if (!url.pathname.endsWith(MCP_PATH)) url.pathname = `${url.pathname.replace(/\/+$/, '')}${MCP_PATH}`;
  return { url, key: parsed.data.MEASUREMENT_API_KEY };
}

/**
 * An MCP server for stdio clients that forwards tools/list and tools/call to the remote /mcp with
 * the key as a Bearer header (the SDK's client over Streamable HTTP): the tools, their costs and
 * their errors are the remote server's. It connects on the first call, so a client starts it even
 * while the remote server is unreachable; a call that cannot reach it is a tool error saying so.
 */
export function stdioProxy(remote: RemoteServer): Server {
  let connected: Promise<Client> | undefined;
  const client = () => {
    connected ??= connectRemote(remote).catch((error: unknown) => {
      connected = undefined;
      throw error;
    });
    return connected;
  };
  const server = new Server(
    { name: 'measurement-api', title: API_TITLE, version: API_VERSION },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, async (request) => (await client()).listTools(request.params));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    try {
      return (await (await client()).callTool(request.params)) as CallToolResult;
    } catch (error) {
      const text = `The Measurement API at ${remote.url.origin} could not be reached or refused the call: ${(error as Error).message}`;
      return { content: [{ type: 'text', text }], isError: true };
    }
  });
  server.onclose = () =>
    void connected?.then(
      (c) => c.close(),
      () => undefined,
    );
  return server;
}

async function connectRemote(remote: RemoteServer): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(remote.url, { requestInit: { headers: { authorization: `Bearer ${remote.key}` } } });
  const client = new Client({ name: 'measurement-api-stdio', version: API_VERSION });
  await client.connect(transport);
  return client;
}
