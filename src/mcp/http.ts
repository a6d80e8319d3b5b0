import type { IncomingMessage } from 'node:http';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Logger } from 'pino';
import { ApiError } from '../domain/errors';
import { quoteInput } from '../domain/quote-input';
import type { ResponseParts } from '../http/answer/answer-parts';
import { readNodeBody } from '../http/front/body';
import { errorParts } from '../http/answer/errors';
import { DEFAULT_BODY_LIMIT, MCP_PATH, routeLabel } from '../http/routes';
import type { AnswerPlace, Finish } from '../http/front/finish';
import type { FrontHandler } from '../http/graphql/yoga-answers';
import { headerText } from '../http/front/target';
import type { RequestSpending } from '../http/limits/request-spending';
import type { RunDocument } from './run-document';
import { createMcpServer } from './server';
import type { HttpRequestContext } from '../http/front/request-context';

/** Answers one request to /mcp with its context; the front adds what every answer carries and writes it. */
export type McpHandler = (req: IncomingMessage, context: HttpRequestContext) => Promise<ResponseParts>;

export interface McpHandlerOptions {
  /** The document runner of a request (run-document.ts). */
  runnerFor(context: HttpRequestContext): RunDocument;
  /** The request rate limit: a call spends one request of the key's, covering every field its document runs. */
  spending: Pick<RequestSpending, 'spendRequest'>;
  /** Host names (no port) the Host header may name; undefined accepts any (MCP_ALLOWED_HOSTS). */
  allowedHosts: readonly string[] | undefined;
  /** Origins a browser may call from besides the server's own (MCP_ALLOWED_ORIGINS); a request with any other Origin is refused. */
  allowedOrigins: readonly string[];
  log: Logger;
}

/**
 * The Streamable HTTP endpoint, stateless: every POST gets a fresh server and transport (no session
 * id, so any instance answers any request), JSON answers rather than an event stream, and GET and
 * DELETE are 405 (no server-initiated stream, no session to end), as the transport specification
 * allows. Before the transport: the Host and Origin checks the SDK's guidance asks for against DNS
 * rebinding, the body limit, the Bearer key (401 with WWW-Authenticate, KEY_EXPIRED) and one request
 * of the key's rate limit, each refused in the contract's error body. A tool call's own refusals
 * (quota, plan, bad input) are tool results, made by the tools.
 */
export function mcpHandler(options: McpHandlerOptions): McpHandler {
  return async (req, context) => {
    try {
      checkHostAndOrigin(req, options);
      if (req.method !== 'POST') {
        throw new ApiError(
          'METHOD_NOT_ALLOWED',
          `${req.method} is not allowed on '${MCP_PATH}': this server is stateless and answers POST only.`,
          { allow: ['POST'] },
        );
      }
      const body = await readNodeBody(req, DEFAULT_BODY_LIMIT);
      await options.spending.spendRequest(context, 'key', 'request');
      return await transportAnswer(req, body, options.runnerFor(context));
    } catch (error) {
      if (error instanceof ApiError) return errorParts(error, context);
      options.log.error({ err: error, requestId: context.requestId }, 'unexpected error');
      return errorParts(new ApiError('INTERNAL', 'An unexpected error occurred.'), context);
    }
  };
}

function checkHostAndOrigin(req: IncomingMessage, options: McpHandlerOptions): void {
  if (options.allowedHosts !== undefined) {
    const host = hostnameOf(req.headers.host);
    if (host === undefined || !options.allowedHosts.includes(host)) {
      throw new ApiError(
        'FORBIDDEN',
        `The Host ${host === undefined ? 'is missing or malformed' : `${quoteInput(host)} is not served here`}: ${MCP_PATH} answers only the host names the server is configured for (MCP_ALLOWED_HOSTS).`,
      );
    }
  }
  const origin = headerText(req.headers.origin);
  if (origin !== null && !options.allowedOrigins.includes(origin) && !sameOrigin(origin, req.headers.host)) {
    throw new ApiError('FORBIDDEN', `Requests to ${MCP_PATH} from the web origin ${quoteInput(origin)} are refused (MCP_ALLOWED_ORIGINS).`);
  }
}

/** A page of the server's own origin (its host and port as the Host header names them). */
function sameOrigin(origin: string, host: string | undefined): boolean {
  if (!host) return false;
  try {
    return new URL(origin).host === new URL(`http://${host}`).host;
  } catch {
    return false;
  }
}

/** The host name of a Host header as the URL parser reads it (IPv6 in brackets), without the port. */
function hostnameOf(host: string | undefined): string | undefined {
  if (!host) return undefined;
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return undefined;
  }
}

/** The SDK's transport answering one message with a server of its own, closed after. */
async function transportAnswer(req: IncomingMessage, body: string, runDocument: RunDocument): Promise<ResponseParts> {
  const server = createMcpServer(runDocument);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(
      new Request(`http://localhost${MCP_PATH}`, { method: 'POST', headers: requestHeaders(req), body }),
    );
    const text = await response.text();
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    headers['content-length'] = String(Buffer.byteLength(text));
    return { status: response.status, headers, body: text };
  } finally {
    await server.close();
  }
}

/** The headers the transport reads (Accept, Content-Type, MCP-Protocol-Version, Mcp-Session-Id), without the key. */
function requestHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const name of ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id']) {
    const value = headerText(req.headers[name]);
    if (value !== null) headers.set(name, value);
  }
  return headers;
}

/** Where /mcp answers are counted; they carry no CORS fields. */
const MCP_PLACE: AnswerPlace = { label: routeLabel(MCP_PATH), cors: undefined };

/** /mcp on the one front: the handler's answer, finished like every other answer. */
export function mcpAnswers(mcp: McpHandler, finish: Finish): FrontHandler {
  return (req, res, context, started) => {
    finish.entered();
    mcp(req, context)
      .then((parts) => finish.send(req, res, MCP_PLACE, context, parts, started))
      .catch(finish.unexpected(req, res, MCP_PLACE, context, started));
  };
}
