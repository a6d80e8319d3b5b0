import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { z } from 'zod';
import { API_TITLE, API_VERSION } from '../version';
import type { RunDocument } from './run-document';
import { convertTool } from './tools/convert';
import { findCurrenciesTool } from './tools/find-currencies';
import { findUnitsTool } from './tools/find-units';
import { rateSeriesSummaryTool } from './tools/rate-series-summary';
import { ratesTool } from './tools/rates';
import { READ_ONLY, type ToolDefinition } from './tools/shared';

/** The tools, in the order clients list them. */
export const TOOLS = [convertTool, ratesTool, findUnitsTool, findCurrenciesTool, rateSeriesSummaryTool] as const;

export const INSTRUCTIONS =
  'Exact unit and currency conversion. Use convert for any conversion (units, currencies at the ECB reference rates, unit expressions such as EUR/kWh); ' +
  "find_units and find_currencies when unsure of a name; rates for a day's exchange rates; rate_series_summary for a trend. " +
  'Numbers are decimal strings: pass them on as written. Only convert uses the monthly quota (one per successful call).';

/**
 * An MCP server of the tools for one HTTP request (the transport is stateless): each tool runs its
 * persisted documents with that request's context through `runDocument`.
 */
export function createMcpServer(runDocument: RunDocument): McpServer {
  const server = new McpServer(
    { name: 'measurement-api', title: API_TITLE, version: API_VERSION },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
  );
  for (const tool of TOOLS) register(server, tool as unknown as ToolDefinition<z.ZodRawShape>, runDocument);
  return server;
}

function register(server: McpServer, tool: ToolDefinition<z.ZodRawShape>, runDocument: RunDocument): void {
  const config = {
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    annotations: { title: tool.title, ...READ_ONLY },
  };
  server.registerTool(tool.name, config, (args: Record<string, unknown>) => tool.run(args as never, runDocument));
}
