import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { InMemoryTransport, Server, type CallToolResult, type ListToolsResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { API_TITLE, API_VERSION } from '../version';
import { MCP_PATH } from '../http/routes';
import { createMcpServer, INSTRUCTIONS } from './server';

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
 * the key as a Bearer header (the SDK's client over Streamable HTTP, on the newest revision both
 * sides speak): the tools, their costs and their errors are the remote server's. It connects on
 * the first call, so a client starts it even while the remote server is unreachable. A remote it
 * cannot reach, or that refuses the key, never makes a protocol error: tools/list then lists the
 * tools this checkout defines, and each call is a tool error naming the URL and what went wrong.
 */
export function stdioProxy(remote: RemoteServer): () => Server {
  let connected: Promise<Client> | undefined;
  const client = () => {
    connected ??= connectRemote(remote).catch((error: unknown) => {
      connected = undefined;
      throw error;
    });
    return connected;
  };
  return () => {
    const server = new Server(
      { name: 'measurement-api', title: API_TITLE, version: API_VERSION },
      { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
    );
    server.setRequestHandler('tools/list', async (request): Promise<ListToolsResult> => {
      try {
        return await (await client()).listTools(request.params);
      } catch {
        return localTools();
      }
    });
    server.setRequestHandler('tools/call', async (request): Promise<CallToolResult> => {
      try {
        return (await (await client()).callTool(request.params)) as CallToolResult;
      } catch (error) {
        return { content: [{ type: 'text', text: unreachable(remote, error) }], isError: true };
      }
    });
    server.onclose = () =>
      void connected?.then(
        (c) => c.close(),
        () => undefined,
      );
    return server;
  };
}

async function connectRemote(remote: RemoteServer): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(remote.url, { requestInit: { headers: { authorization: `Bearer ${remote.key}` } } });
  const client = new Client({ name: 'measurement-api-stdio', version: API_VERSION }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(transport);
  return client;
}

/** The tools this checkout defines, as the remote server of the same version lists them. */
async function localTools(): Promise<ListToolsResult> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = createMcpServer(() => Promise.reject(new Error('The local tool list runs no document.')));
  const client = new Client({ name: 'measurement-api-stdio', version: API_VERSION });
  await server.connect(serverSide);
  await client.connect(clientSide);
  try {
    return await client.listTools();
  } finally {
    await client.close();
    await server.close();
  }
}

/** Why a call did not reach the tool: the remote refused the key, or could not be reached; with the URL. */
function unreachable(remote: RemoteServer, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const root = rootCause(error);
  const cause = root === undefined ? '' : ` (${root})`;
  if (/\b401\b|unauthori[sz]ed/i.test(message)) {
    return `The Measurement API at ${remote.url.href} refused the key (401): check MEASUREMENT_API_KEY (${message}).`;
  }
  return `The Measurement API at ${remote.url.href} could not be reached: ${message}${cause}. Check MEASUREMENT_API_URL and that the server is running.`;
}

/** The innermost cause of an error (a socket's ECONNREFUSED under fetch's "fetch failed"), with its code. */
function rootCause(error: unknown): string | undefined {
  const first = error instanceof Error ? error.cause : undefined;
  if (!(first instanceof Error)) return undefined;
  let cause: Error = first;
  while (cause.cause instanceof Error) cause = cause.cause;
  const code = (cause as { code?: unknown }).code;
  return typeof code === 'string' ? `${code}: ${cause.message}` : cause.message;
}
