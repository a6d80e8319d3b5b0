import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { ApiError } from '../domain/errors';
import type { KeyEnv } from '../domain/keys';
import { csrfTokenMatches } from '../domain/sessions';
import type { TrustProxy } from '../domain/client-ip';
import { clientMessage } from '../graphql/error-body';
import { errorHeaders } from '../http/error-headers';
import { restErrorResponse, toApiError } from '../http/errors';
import { requestContextOf } from '../http/request-context';
import { isAccountPath } from '../http/routes';
import type { AppServices } from '../services';
import type { AccountSession } from '../services/accounts';
import { ASSETS } from './assets';
import {
  cameOverTls, checkSameOrigin, clearedSessionCookie, htmlResponse, PAGE_HEADERS, prefersHtml, readForm, redirect, sessionCookie, sessionTokenOf,
} from './page-http';
import { confirmRevokePage, dashboardPage, errorPage, signInPage } from './views';

export interface AccountPageOptions {
  services: AppServices;
  trust: TrustProxy;
  log: Logger;
}

/** One request to the account page, with what every handler needs. */
interface Visit {
  request: Request;
  url: URL;
  serverContext: object;
  /** The request came over TLS (directly or through a trusted proxy): this page's origin is https. */
  tls: boolean;
  /** The session cookie gets Secure (COOKIE_SECURE, or `tls` when it is unset). */
  secure: boolean;
  /** The key id of a /account/keys/:id/... path. */
  keyId: string | undefined;
}

type Handler = (visit: Visit) => Promise<Response>;

const KEY_ID = '(key_[0-9A-Za-z]{16})';

/**
 * The account page (`GET /account` and its form posts): it answers every path under /account
 * itself (the edge leaves /account to Yoga). Handlers parse the form, call the
 * accounts service, and redirect (post, then redirect) or render.
 */
export function useAccountPage({ services, trust, log }: AccountPageOptions): Plugin {
  const { accounts, config } = services;

  const withSession = (handler: (visit: Visit, session: AccountSession, form: URLSearchParams) => Promise<Response>): Handler => async (visit) => {
    checkSameOrigin(visit.request, selfOrigin(visit));
    const form = await readForm(visit.request);
    const session = await accounts.session(sessionTokenOf(visit.request));
    if (session === undefined || session === 'expired') return redirect('/account', [clearedSessionCookie(visit.secure)]);
    if (!csrfTokenMatches(session.token, form.get('csrf'))) {
      throw new ApiError('FORBIDDEN', 'The form was stale or not from this page (its CSRF token did not match): reload the account page and try again.');
    }
    return handler(visit, session, form);
  };

  /** Log-in and sign-up: errors re-render the form (with the email kept) instead of a bare error. */
  const credentialsForm = (act: (email: string, password: string, visit: Visit) => Promise<string>): Handler => async (visit) => {
    checkSameOrigin(visit.request, selfOrigin(visit));
    const form = await readForm(visit.request);
    const email = form.get('email') ?? '';
    try {
      const token = await act(email, form.get('password') ?? '', visit);
      return redirect('/account', [sessionCookie(token, visit.secure)]);
    } catch (error) {
      if (!(error instanceof ApiError) || !prefersHtml(visit.request)) throw error;
      return htmlResponse(signInPage({ signupOpen: accounts.signupOpen, email: email.slice(0, 254), error: clientMessage(error) }), error.status, errorHeaders(error));
    }
  };

  const routes: [RegExp, Partial<Record<'GET' | 'POST', Handler>>][] = [
    [/^\/account$/, {
      GET: async ({ request, secure }) => {
        const session = await accounts.session(sessionTokenOf(request));
        if (session === undefined || session === 'expired') {
          const notice = session === 'expired' ? 'Your session has ended; please log in again.' : undefined;
          return htmlResponse(signInPage({ signupOpen: accounts.signupOpen, ...(notice ? { notice } : {}) }), 200, {}, session ? [clearedSessionCookie(secure)] : []);
        }
        const flash = await accounts.takeFlash(session);
        return htmlResponse(dashboardPage(session, await accounts.overview(session.account), flash));
      },
    }],
    [/^\/account\/login$/, {
      POST: credentialsForm((email, password, visit) => accounts.logIn({ email, password }, bucketOf(visit), sessionTokenOf(visit.request))),
    }],
    [/^\/account\/signup$/, {
      POST: credentialsForm((email, password, visit) => accounts.signUp({ email, password }, bucketOf(visit), sessionTokenOf(visit.request))),
    }],
    [/^\/account\/logout$/, {
      POST: withSession(async (visit, session) => {
        await accounts.logOut(session.token);
        return redirect('/account', [clearedSessionCookie(visit.secure)]);
      }),
    }],
    [/^\/account\/keys$/, {
      POST: withSession(async (_visit, session, form) => {
        await accounts.createKey(session, envOf(form.get('env') ?? accounts.serverEnv));
        return redirect('/account');
      }),
    }],
    [new RegExp(`^/account/keys/${KEY_ID}/rotate$`), {
      POST: withSession(async (visit, session) => {
        await accounts.rotateKey(session, visit.keyId!);
        return redirect('/account');
      }),
    }],
    [new RegExp(`^/account/keys/${KEY_ID}/revoke$`), {
      GET: async ({ request, keyId }) => {
        const session = await accounts.session(sessionTokenOf(request));
        if (session === undefined || session === 'expired') return redirect('/account');
        return htmlResponse(confirmRevokePage(session, await accounts.keyOf(session, keyId!)));
      },
      POST: withSession(async (visit, session, form) => {
        if (form.get('confirm') !== 'yes') return redirect(`/account/keys/${visit.keyId}/revoke`);
        await accounts.revokeKey(session, visit.keyId!);
        return redirect('/account');
      }),
    }],
  ];

  const bucketOf = (visit: Visit) => requestContextOf(visit.serverContext).clientBucket;
  const selfOrigin = (visit: Visit) => `${visit.tls ? 'https:' : 'http:'}//${visit.url.host}`;

  const answer = async (request: Request, url: URL, serverContext: object): Promise<Response> => {
    const asset = ASSETS[url.pathname];
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    if (asset) {
      if (method !== 'GET') throw new ApiError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${url.pathname}; use GET.`, { allow: ['GET', 'HEAD'] });
      return new Response(asset.body, { headers: { 'content-type': asset.type, etag: asset.etag } });
    }
    for (const [pattern, handlers] of routes) {
      const match = pattern.exec(url.pathname);
      if (!match) continue;
      const handler = handlers[method as 'GET' | 'POST'];
      if (!handler) {
        const allow = Object.keys(handlers).flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m]));
        throw new ApiError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${url.pathname}; use ${allow.join(', ')}.`, { allow });
      }
      const tls = cameOverTls(request, url, serverContext, trust);
      const secure = config.cookieSecure === 'auto' ? tls : config.cookieSecure;
      return handler({ request, url, serverContext, tls, secure, keyId: match[1] });
    }
    throw new ApiError('NOT_FOUND', `There is no page ${url.pathname}. The account page is GET /account.`);
  };

  return {
    async onRequest({ request, url, endResponse, serverContext }) {
      if (!isAccountPath(url.pathname)) return;
      const { requestId } = requestContextOf(serverContext);
      let response: Response;
      try {
        response = await answer(request, url, serverContext);
      } catch (error) {
        const api = toApiError(error);
        if (api.code === 'INTERNAL') log.error({ err: error, requestId }, 'unexpected error on the account page');
        // Unknown paths and methods answer the contract's JSON error; a browser's failed form gets a page.
        const page = prefersHtml(request) && api.code !== 'NOT_FOUND' && api.code !== 'METHOD_NOT_ALLOWED';
        response = page ? htmlResponse(errorPage(titleOf(api), clientMessage(api)), api.status, errorHeaders(api)) : restErrorResponse(api, requestId);
      }
      for (const [name, value] of Object.entries(PAGE_HEADERS)) response.headers.set(name, value);
      if (request.method === 'HEAD') response = new Response(null, { status: response.status, headers: response.headers });
      endResponse(response);
    },
  };
}

function envOf(value: string): KeyEnv {
  if (value !== 'test' && value !== 'live') throw new ApiError('INVALID_REQUEST', `The environment must be test or live (got '${value.slice(0, 20)}').`, { param: 'env' });
  return value;
}

function titleOf(error: ApiError): string {
  switch (error.code) {
    case 'FORBIDDEN': return 'Refused';
    case 'RATE_LIMIT_EXCEEDED': return 'Too many attempts';
    case 'NOT_FOUND': return 'Not found';
    default: return 'Something went wrong';
  }
}
