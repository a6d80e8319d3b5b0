import { McpServer, type CacheHint, type CallToolResult, type StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { ApiError } from '../domain/errors';
import { API_TITLE, API_VERSION } from '../version';
import type { RunDocument } from './run-document';
import { toolErrorSchema, toolRefusal } from './tool-results';
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
 * How long a client may keep the tool list and the discovery answer (2026-07-28 cache hints):
 * they are the same for every key, so any cache may share them, and they change only when the
 * server is deployed again (the list never changes while it runs: `listChanged` is false).
 */
export const LIST_CACHE_HINT: CacheHint = { ttlMs: 600_000, cacheScope: 'public' };

/**
 * An MCP server of the tools for one HTTP request (the transport is stateless): each tool runs its
 * persisted documents with that request's context through `runDocument`.
 */
export function createMcpServer(runDocument: RunDocument): McpServer {
  const server = new McpServer(
    { name: 'measurement-api', title: API_TITLE, version: API_VERSION },
    {
      capabilities: { tools: { listChanged: false } },
      instructions: INSTRUCTIONS,
      cacheHints: { 'tools/list': LIST_CACHE_HINT, 'server/discover': LIST_CACHE_HINT },
    },
  );
  for (const tool of TOOLS) register(server, tool as unknown as ToolDefinition<z.ZodRawShape>, runDocument);
  return server;
}

/**
 * Registers a tool whose arguments it checks itself, so that a bad argument is refused in the
 * contract's terms (INVALID_REQUEST naming the parameter) like any other mistake; its output
 * schema admits each of its answers and the refusal every tool may give.
 */
function register(server: McpServer, tool: ToolDefinition<z.ZodRawShape>, runDocument: RunDocument): void {
  const input = z.object(tool.inputSchema);
  const config = {
    title: tool.title,
    description: tool.description,
    inputSchema: publishedOnly(input),
    outputSchema: z.union([...tool.outputSchemas, toolErrorSchema]),
    annotations: { title: tool.title, ...READ_ONLY },
  };
  server.registerTool(tool.name, config, async (args: unknown): Promise<CallToolResult> => {
    const parsed = input.safeParse(args);
    if (!parsed.success) return toolRefusal(argumentMistake(parsed.error));
    return tool.run(parsed.data, runDocument);
  });
}

/** A schema the SDK lists as given but lets every value through: the tool checks its arguments itself. */
function publishedOnly(schema: z.ZodObject): StandardSchemaWithJSON {
  return {
    '~standard': { version: 1, vendor: 'measurement-api', jsonSchema: schema['~standard'].jsonSchema, validate: (value) => ({ value }) },
  };
}

/** The first problem of the arguments as the contract's INVALID_REQUEST, naming the argument. */
function argumentMistake(error: z.ZodError): ApiError {
  const issue = error.issues[0]!;
  const param = issue.path[0];
  if (param === undefined) return new ApiError('INVALID_REQUEST', "The arguments must be an object, as the tool's input schema says.");
  const name = String(param);
  const message = issue.message.startsWith(`${name} `) ? issue.message : `${name}: ${issue.message}.`;
  return new ApiError('INVALID_REQUEST', message, { param: name });
}
