import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { ApiError } from '../domain/errors';
import type { TrustProxy } from '../domain/client-ip';
import { clientMessage } from '../graphql/error-body';
import { errorHeaders } from '../http/answer/error-headers';
import { failureOf, restErrorResponse } from '../http/answer/errors';
import { requestContextOf } from '../http/front/request-context';
import { isAccountPath } from '../http/routes';
import type { AppServices } from '../services';
import { accountRoutes } from './account-routes';
import { agentRoutes } from './agent-routes';
import { ASSETS } from './assets';
import { cameOverTls, htmlResponse, PAGE_HEADERS, prefersHtml } from './page-http';
import { errorPage } from './views';

export interface AccountPageOptions {
  services: AppServices;
  trust: TrustProxy;
  log: Logger;
}

/**
 * The account page (`GET /account` and its form posts): it answers every path under /account
 * itself (the edge leaves /account to Yoga): its assets, then its routes (account-routes.ts), each
 * answer given the page's headers, and any error rendered as a page or the contract's JSON error.
 */
export function useAccountPage({ services, trust, log }: AccountPageOptions): Plugin {
  const { accounts, config } = services;
  const routes = [...accountRoutes(accounts, services.agents), ...(services.agents ? agentRoutes(accounts, services.agents) : [])];

  const answer = async (request: Request, url: URL, serverContext: object): Promise<Response> => {
    const asset = ASSETS[url.pathname];
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    if (asset) {
      if (method !== 'GET')
        throw new ApiError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${url.pathname}; use GET.`, {
          allow: ['GET', 'HEAD'],
        });
      return new Response(asset.body, { headers: { 'content-type': asset.type, etag: asset.etag } });
    }
    for (const [pattern, handlers] of routes) {
      const match = pattern.exec(url.pathname);
      if (!match) continue;
      const handler = handlers[method as 'GET' | 'POST'];
      if (!handler) {
        const allow = Object.keys(handlers).flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m]));
        throw new ApiError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${url.pathname}; use ${allow.join(', ')}.`, {
          allow,
        });
      }
      const tls = cameOverTls(request, url, serverContext, trust);
      const secure = config.cookieSecure === 'auto' ? tls : config.cookieSecure;
      return handler({ request, url, serverContext, tls, secure, pathId: match[1] });
    }
    throw new ApiError('NOT_FOUND', `There is no page ${url.pathname}. The account page is GET /account.`);
  };

  return {
    async onRequest({ request, url, endResponse, serverContext }) {
      if (!isAccountPath(url.pathname)) return;
      const context = requestContextOf(serverContext);
      const { requestId } = context;
      let response: Response;
      try {
        response = await answer(request, url, serverContext);
      } catch (error) {
        // The access log's code is set where the refusal is made, whether it is answered as a page or as JSON.
        const api = failureOf(error, context, log);
        // Unknown paths and methods answer the contract's JSON error; a browser's failed form gets a page.
        const page = prefersHtml(request) && api.code !== 'NOT_FOUND' && api.code !== 'METHOD_NOT_ALLOWED';
        response = page
          ? htmlResponse(errorPage(titleOf(api), clientMessage(api)), api.status, errorHeaders(api))
          : restErrorResponse(api, requestId);
      }
      for (const [name, value] of Object.entries(PAGE_HEADERS)) {
        // A page that widens one directive (the consent step's form-action) sends its own CSP, built from PAGE_CSP.
        if (name === 'content-security-policy' && response.headers.has(name)) continue;
        response.headers.set(name, value);
      }
      if (request.method === 'HEAD') response = new Response(null, { status: response.status, headers: response.headers });
      endResponse(response);
    },
  };
}

function titleOf(error: ApiError): string {
  switch (error.code) {
    case 'FORBIDDEN':
      return 'Refused';
    case 'RATE_LIMIT_EXCEEDED':
      return 'Too many attempts';
    case 'NOT_FOUND':
      return 'Not found';
    case 'INVALID_REQUEST':
      return 'Please check the form';
    default:
      return 'Something went wrong';
  }
}
