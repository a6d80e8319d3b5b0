import { type IncomingMessage, ServerResponse } from 'node:http';
import type { ResponseParts } from '../answer/answer-parts';
import type { AnswerPlace, Finish } from '../front/finish';
import type { FrontHandler } from '../graphql/yoga-answers';
import { pathOf } from '../front/target';
import { PROTECTED_RESOURCE_PATHS, routeLabel } from '../routes';
import type { AgentAuthorization } from '../../services/oauth/agents';
import { MCP_SCOPE } from '../../services/oauth/oauth-provider';

const OAUTH_PLACE: AnswerPlace = { label: routeLabel('/oauth/token'), cors: undefined, standsWithoutLimits: true };
/** Public metadata: any origin may read it, without credentials (contract: public routes). */
const METADATA_PLACE: AnswerPlace = {
  label: routeLabel('/oauth/token'),
  cors: { 'access-control-allow-origin': '*' },
  standsWithoutLimits: true,
};

/**
 * The agents' OAuth paths on the one front: the protected resource's metadata (RFC 9728) answered
 * here, everything else (authorization, token, revocation, RFC 8414 metadata) by oidc-provider's
 * own request handler, its answer captured whole and finished like every other answer (security
 * headers, request id, metric, access log), its cookies set apart. Without OAUTH_ISSUER, `absent`
 * (the edge's 404) answers.
 */
export function oauthAnswers(agents: AgentAuthorization | undefined, finish: Finish, absent: FrontHandler): FrontHandler {
  if (!agents) return absent;
  let handle: Promise<(req: IncomingMessage, res: ServerResponse) => Promise<void>> | undefined;
  return (req, res, context, started) => {
    finish.entered();
    if (PROTECTED_RESOURCE_PATHS.includes(pathOf(req.url))) {
      return void finish.send(req, res, METADATA_PLACE, context, protectedResourceMetadata(agents), started);
    }
    handle ??= agents
      .provider()
      .then((provider) => provider.callback() as unknown as (req: IncomingMessage, res: ServerResponse) => Promise<void>);
    handle
      .then((callback) => providerAnswer(callback, req))
      .then(({ parts, cookies }) => {
        if (cookies.length > 0) res.setHeader('set-cookie', cookies);
        return finish.send(req, res, OAUTH_PLACE, context, parts, started);
      })
      .catch(finish.unexpected(req, res, OAUTH_PLACE, context, started));
  };
}

/** RFC 9728: the resource, the one authorization server, the scope, and that tokens go in the Authorization header. */
function protectedResourceMetadata(agents: AgentAuthorization): ResponseParts {
  const body = JSON.stringify({
    resource: agents.resource,
    authorization_servers: [agents.config.issuer],
    scopes_supported: [MCP_SCOPE],
    bearer_methods_supported: ['header'],
    resource_name: 'Measurement API (MCP)',
    resource_documentation: `${agents.config.issuer}/docs`,
  });
  return {
    status: 200,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'public, max-age=3600',
      'content-length': String(Buffer.byteLength(body)),
    },
    body,
  };
}

/**
 * Runs the provider's handler on the request with a response that is never written to the socket:
 * what it sets and ends with becomes the answer's parts (Koa ends every answer of the provider with
 * one `end`, its body a string or bytes).
 */
function providerAnswer(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  req: IncomingMessage,
): Promise<{ parts: ResponseParts; cookies: string[] }> {
  return new Promise((resolve, reject) => {
    const capture = new ServerResponse(req);
    capture.end = ((chunk?: unknown) => {
      const headers: Record<string, string> = {};
      let cookies: string[] = [];
      for (const [name, value] of Object.entries(capture.getHeaders())) {
        if (value === undefined) continue;
        if (name === 'set-cookie') cookies = ([] as string[]).concat(value as string | string[]);
        else headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
      }
      const body = chunk === undefined || chunk === null ? '' : typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array);
      if (req.method !== 'HEAD' || headers['content-length'] === undefined) headers['content-length'] = String(Buffer.byteLength(body));
      resolve({ parts: { status: capture.statusCode, headers, body }, cookies });
      return capture;
    }) as ServerResponse['end'];
    handle(req, capture).catch(reject);
  });
}
