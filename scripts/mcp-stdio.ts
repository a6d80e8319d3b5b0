/**
 * `npm run --silent mcp`: the Measurement API's MCP tools over stdio, for desktop clients that
 * cannot reach a remote server themselves. Calls MEASUREMENT_API_URL with MEASUREMENT_API_KEY.
 * Stdout carries the protocol only; problems go to stderr.
 */
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { remoteServerOf, stdioProxy } from '../src/mcp/stdio-proxy';

let remote;
try {
  remote = remoteServerOf(process.env);
} catch (error) {
  console.error(`mcp: ${(error as Error).message}`);
  process.exit(2);
}
serveStdio(stdioProxy(remote), { onerror: (error) => console.error(`mcp: ${error.message}`) });
