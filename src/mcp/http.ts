import type { IncomingMessage } from 'node:http';
import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type McpHttpHandler,
} from '@modelcontextprotocol/server';
import type { Logger } from 'pino';
import { isTrustedProxy, type TrustProxy } from '../domain/client-ip';
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
import { judgeMessages } from './batches';
import { createMcpServer } from './server';
import type { HttpRequestContext } from '../http/front/request-context';

/** Answers one request to /mcp with its context; the front adds what every answer carries and writes it. */
export type McpHandler = (req: IncomingMessage, context: HttpRequestContext) => Promise<ResponseParts>;

export interface McpHandlerOptions {
  /** The document runner of a request (run-document.ts). */
  runnerFor(context: HttpRequestContext): RunDocument;
  /** The request rate limit: each JSON-RPC message spends one request of the key's, covering every field its document runs. */
  spending: Pick<RequestSpending, 'spendRequest' | 'spendMore'>;
  /** Host names (no port) the Host header may name; undefined accepts any (MCP_ALLOWED_HOSTS). */
  allowedHosts: readonly string[] | undefined;
  /** Origins a browser may call from besides the server's own (MCP_ALLOWED_ORIGINS); a request with any other Origin is refused. */
  allowedOrigins: readonly string[];
  /** The proxies whose X-Forwarded-Proto says which scheme the server's own origin has (TRUST_PROXY). */
  trust: TrustProxy;
  log: Logger;
}

/**
 * The Streamable HTTP endpoint, stateless, for both eras of the protocol: a 2026-07-28 request
 * (the per-request `_meta` envelope, no `initialize`) goes to the SDK's handler of that revision,
 * anything else to a 2025 transport; either way every POST gets a fresh server (no session id, so
 * any instance answers any request), answers are JSON rather than an event stream, and GET and
 * DELETE are 405 (no server-initiated stream, no session to end), as the transport specification
 * allows. Before the transport: the Host and Origin checks the SDK's guidance asks for against DNS
 * rebinding, the body limit, the Bearer key (401 with WWW-Authenticate, KEY_EXPIRED) and one request
 * of the key's rate limit per JSON-RPC message, all spent before any message runs, each refused in
 * the contract's error body. A batch the revision does not allow (batches.ts) is a JSON-RPC
 * Invalid Request, as the transport's own protocol refusals are. A tool call's own refusals (quota,
 * plan, bad input) are tool results, made by the tools.
 */
export function mcpHandler(options: McpHandlerOptions): McpHandler {
  const allowed = new Set(options.allowedOrigins.map((origin) => originOf(origin)));
  const modern = modernHandler(options.log);
  return async (req, context) => {
    try {
      checkHostAndOrigin(req, options, allowed);
      if (req.method !== 'POST') {
        throw new ApiError(
          'METHOD_NOT_ALLOWED',
          `${req.method} is not allowed on '${MCP_PATH}': this server is stateless and answers POST only.`,
          { allow: ['POST'] },
        );
      }
      const body = await readNodeBody(req, DEFAULT_BODY_LIMIT);
      await options.spending.spendRequest(context, 'key', 'request');
      const verdict = judgeMessages(body, headerText(req.headers['mcp-protocol-version']));
      if ('refusal' in verdict) return jsonRpcInvalidRequest(verdict.refusal);
      if (verdict.messages > 1) await options.spending.spendMore(context, verdict.messages - 1);
      return await transportAnswer(req, body, options.runnerFor(context), modern);
    } catch (error) {
      if (error instanceof ApiError) return withKeyChallenge(errorParts(error, context), error);
      options.log.error({ err: error, requestId: context.requestId }, 'unexpected error');
      return errorParts(new ApiError('INTERNAL', 'An unexpected error occurred.'), context);
    }
  };
}

/**
 * The Bearer challenge of a refused credential (RFC 6750) with what /mcp takes: an
 * `error_description` saying why it was refused. Where OAuth is on (the challenge names the
 * protected-resource metadata, RFC 9728) the challenge keeps `resource_metadata`, so an agent can
 * sign in again; where it is off, the description says the endpoint takes an API key and no OAuth
 * metadata is named, so a client probing for OAuth finds nothing to start (the discovery documents
 * are 404). A request without a credential gets the bare challenge, as the RFC asks.
 */
function withKeyChallenge(parts: ResponseParts, error: ApiError): ResponseParts {
  const challenge = error.details.challenge;
  if (challenge === undefined || !challenge.invalid) return parts;
  const oauth = challenge.resourceMetadata !== undefined;
  const takes = oauth
    ? 'takes an API key or an OAuth access token as a Bearer token'
    : 'takes an API key as a Bearer token; it offers no OAuth';
  const description = `${error.message} ${MCP_PATH} ${takes}.`.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, ' ');
  const headers = Object.fromEntries(Object.entries(parts.headers).filter(([name]) => name.toLowerCase() !== 'www-authenticate'));
  const metadata = oauth ? `, resource_metadata="${challenge.resourceMetadata}"` : '';
  headers['WWW-Authenticate'] = `Bearer realm="${challenge.realm}", error="invalid_token", error_description="${description}"${metadata}`;
  return { ...parts, headers };
}

function checkHostAndOrigin(req: IncomingMessage, options: McpHandlerOptions, allowedOrigins: ReadonlySet<string | undefined>): void {
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
  if (origin === null) return;
  const sent = originOf(origin);
  if (sent === undefined || (!allowedOrigins.has(sent) && sent !== ownOrigin(req, options.trust))) {
    throw new ApiError('FORBIDDEN', `Requests to ${MCP_PATH} from the web origin ${quoteInput(origin)} are refused (MCP_ALLOWED_ORIGINS).`);
  }
}

/** An origin in the URL standard's serialization (scheme, host and port, a default port left out); undefined for one that does not parse or is opaque. */
function originOf(text: string): string | undefined {
  if (!URL.canParse(text)) return undefined;
  const { origin } = new URL(text);
  return origin === 'null' ? undefined : origin;
}

/**
 * The server's own origin as this request reached it: https when it came over TLS, directly or as
 * a proxy TRUST_PROXY vouches for says in X-Forwarded-Proto, else http; the host and port the Host
 * header names.
 */
function ownOrigin(req: IncomingMessage, trust: TrustProxy): string | undefined {
  const host = req.headers.host;
  if (!host) return undefined;
  const forwarded = isTrustedProxy(trust, req.socket.remoteAddress ?? '')
    ? headerText(req.headers['x-forwarded-proto'])?.split(',')[0]?.trim().toLowerCase()
    : undefined;
  const tls = (req.socket as { encrypted?: boolean }).encrypted === true || forwarded === 'https';
  return originOf(`${tls ? 'https' : 'http'}://${host}`);
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

/** A JSON-RPC Invalid Request (-32600) for the whole body, in the form the SDK's transport refuses with. */
function jsonRpcInvalidRequest(message: string): ResponseParts {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code: -32600, message }, id: null });
  return { status: 400, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }, body };
}

/** The runner of each request the modern handler is serving, for the server its factory makes. */
const runners = new WeakMap<Request, RunDocument>();

/**
 * The SDK's handler of the 2026-07-28 revision, 2025 traffic left to `legacyAnswer`: each request
 * gets a server of its own with that request's runner. Its tools send no message before their
 * result, so its answers are single JSON bodies.
 */
function modernHandler(log: Logger): McpHttpHandler {
  return createMcpHandler(
    ({ requestInfo }) => {
      const runDocument = requestInfo === undefined ? undefined : runners.get(requestInfo);
      if (runDocument === undefined) throw new TypeError('An MCP request reached the server factory without its document runner.');
      return createMcpServer(runDocument);
    },
    { legacy: 'reject', onerror: (error) => log.debug({ err: error }, 'mcp request refused') },
  );
}

/** One POST answered by the SDK: the 2026-07-28 handler, or a 2025 transport for a request of that era. */
async function transportAnswer(
  req: IncomingMessage,
  body: string,
  runDocument: RunDocument,
  modern: McpHttpHandler,
): Promise<ResponseParts> {
  const request = new Request(`http://localhost${MCP_PATH}`, { method: 'POST', headers: requestHeaders(req), body });
  let response: Response;
  if (await isLegacyRequest(request)) {
    response = await legacyAnswer(request, runDocument);
  } else {
    runners.set(request, runDocument);
    try {
      response = await modern.fetch(request);
    } finally {
      runners.delete(request);
    }
  }
  const text = await response.text();
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  headers['content-length'] = String(Buffer.byteLength(text));
  return { status: response.status, headers, body: text };
}

/** A 2025-era request (an `initialize`, or a call without the per-request envelope): a stateless transport answering JSON, with a server of its own, closed after. */
async function legacyAnswer(request: Request, runDocument: RunDocument): Promise<Response> {
  const server = createMcpServer(runDocument);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(request);
    return new Response(await response.arrayBuffer(), { status: response.status, headers: response.headers });
  } finally {
    await server.close();
  }
}

/** The headers the SDK reads (Accept, Content-Type and the MCP-* headers: protocol version, method, name, parameters), without the key. */
function requestHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const name of Object.keys(req.headers)) {
    if (name !== 'accept' && name !== 'content-type' && name !== 'last-event-id' && !name.startsWith('mcp-')) continue;
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
