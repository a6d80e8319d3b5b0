import { ApiError } from '../domain/errors';
import { keyExpiryFromChoice, parseGraceChoice } from '../domain/key-lifetime';
import type { KeyEnv } from '../domain/keys';
import { csrfTokenMatches } from '../domain/sessions';
import { clientMessage } from '../graphql/error-body';
import { errorHeaders } from '../http/answer/error-headers';
import { requestContextOf } from '../http/front/request-context';
import type { AccountSession, Accounts } from '../services/accounts';
import type { AgentAuthorization } from '../services/oauth/agents';
import {
  checkSameOrigin,
  clearedSessionCookie,
  htmlResponse,
  prefersHtml,
  readForm,
  redirect,
  sessionCookie,
  sessionTokenOf,
} from './page-http';
import { confirmRemoveWebhookPage, confirmRevokePage, confirmRotatePage, dashboardPage, type EntryForm, signInPage } from './views';

/** One request to the account page, with what every handler needs. */
export interface Visit {
  request: Request;
  url: URL;
  serverContext: object;
  /** The request came over TLS (directly or through a trusted proxy): this page's origin is https. */
  tls: boolean;
  /** The session cookie gets Secure (COOKIE_SECURE, or `tls` when it is unset). */
  secure: boolean;
  /** The id in a /account/keys/:id/... or /account/webhooks/:id/... path. */
  pathId: string | undefined;
}

type Handler = (visit: Visit) => Promise<Response>;

/** A path of the account page (its first group, if any, is the id of a key or a webhook endpoint) and its handler per method. */
export type AccountRoute = [RegExp, Partial<Record<'GET' | 'POST', Handler>>];

const KEY_ID = '(key_[0-9A-Za-z]{16})';
/** The consent step of an agent's authorization (agent-routes.ts): its path holds the provider's interaction uid. */
export const CONSENT_PATH = /^\/account\/oauth\/([A-Za-z0-9_-]{10,64})$/;
const ENDPOINT_ID = '(whe_[0-9a-f]{24})';

/** The account page's paths: each handler parses the form, calls the accounts service, and redirects (post, then redirect) or renders. */
export function accountRoutes(accounts: Accounts, agents?: AgentAuthorization): AccountRoute[] {
  return [
    [
      /^\/account$/,
      {
        GET: async (visit) => {
          const { request, secure } = visit;
          const session = await accounts.session(sessionTokenOf(request));
          if (session === undefined || session === 'expired') {
            const notice = session === 'expired' ? 'Your session has ended; please log in again.' : undefined;
            return htmlResponse(
              signInPage({ signupOpen: accounts.signupOpen, ...(notice ? { notice } : {}) }),
              200,
              {},
              session ? [clearedSessionCookie(secure)] : [],
            );
          }
          const flash = await accounts.takeFlash(session);
          const connected = agents ? await agents.connected(session.account) : undefined;
          return htmlResponse(dashboardPage(session, await accounts.overview(session.account), flash, selfOrigin(visit), connected));
        },
      },
    ],
    [
      /^\/account\/login$/,
      {
        POST: credentialsForm(accounts, 'login', (email, password, visit) =>
          accounts.logIn({ email, password }, bucketOf(visit), sessionTokenOf(visit.request)),
        ),
      },
    ],
    [
      /^\/account\/signup$/,
      {
        POST: credentialsForm(accounts, 'signup', (email, password, visit) =>
          accounts.signUp({ email, password }, bucketOf(visit), sessionTokenOf(visit.request)),
        ),
      },
    ],
    [
      /^\/account\/logout$/,
      {
        POST: withSession(accounts, async (visit, session) => {
          await accounts.logOut(session.token);
          return redirect('/account', [clearedSessionCookie(visit.secure)]);
        }),
      },
    ],
    [
      /^\/account\/keys$/,
      {
        POST: withSession(accounts, async (_visit, session, form) => {
          await accounts.createKey(session, envOf(form.get('env') ?? accounts.serverEnv), expiryOf(form, accounts.now()));
          return redirect('/account');
        }),
      },
    ],
    confirmedRoute(accounts, new RegExp(`^/account/keys/${KEY_ID}/rotate$`), {
      path: (id) => `/account/keys/${id}/rotate`,
      confirmation: async (session, id) => confirmRotatePage(session, await accounts.keyOf(session, id), accounts.now()),
      act: (session, id, form) => accounts.rotateKey(session, id, parseGraceChoice(form.get('grace') ?? '')),
      done: '/account',
    }),
    confirmedRoute(accounts, new RegExp(`^/account/keys/${KEY_ID}/revoke$`), {
      path: (id) => `/account/keys/${id}/revoke`,
      confirmation: async (session, id) => confirmRevokePage(session, await accounts.keyOf(session, id)),
      act: (session, id) => accounts.revokeKey(session, id),
      done: '/account',
    }),
    ...webhookRoutes(accounts),
  ];
}

/** Adding a webhook endpoint, and removing one after its confirmation step. */
function webhookRoutes(accounts: Accounts): AccountRoute[] {
  return [
    [
      /^\/account\/webhooks$/,
      {
        POST: withSession(accounts, async (_visit, session, form) => {
          await accounts.addWebhook(session, form.get('url') ?? '');
          return redirect('/account#webhooks');
        }),
      },
    ],
    confirmedRoute(accounts, new RegExp(`^/account/webhooks/${ENDPOINT_ID}/remove$`), {
      path: (id) => `/account/webhooks/${id}/remove`,
      confirmation: async (session, id) => confirmRemoveWebhookPage(session, await accounts.webhookOf(session, id)),
      act: (session, id) => accounts.removeWebhook(session, id),
      done: '/account#webhooks',
    }),
  ];
}

/** A change the account makes only after its confirmation step (rotate, revoke, remove a webhook). */
interface ConfirmedChange {
  /** The route's path for this id: where a POST without confirm=yes goes back to. */
  path(id: string): string;
  /** The confirmation page, which says what the change does. */
  confirmation(session: AccountSession, id: string): Promise<string>;
  act(session: AccountSession, id: string, form: URLSearchParams): Promise<void>;
  /** Where the account goes once it is done. */
  done: string;
}

/**
 * GET shows a signed-in account the change's confirmation page (anyone else goes to /account);
 * POST makes the change when the form says confirm=yes, else goes back to the confirmation.
 */
function confirmedRoute(accounts: Accounts, pattern: RegExp, change: ConfirmedChange): AccountRoute {
  return [
    pattern,
    {
      GET: async ({ request, pathId }) => {
        const session = await accounts.session(sessionTokenOf(request));
        if (session === undefined || session === 'expired') return redirect('/account');
        return htmlResponse(await change.confirmation(session, pathId!));
      },
      POST: withSession(accounts, async (visit, session, form) => {
        if (form.get('confirm') !== 'yes') return redirect(change.path(visit.pathId!));
        await change.act(session, visit.pathId!, form);
        return redirect(change.done);
      }),
    },
  ];
}

/** A signed-in form post: same origin, a live session (else back to sign-in) and the form's CSRF token. */
export const withSession =
  (accounts: Accounts, handler: (visit: Visit, session: AccountSession, form: URLSearchParams) => Promise<Response>): Handler =>
  async (visit) => {
    checkSameOrigin(visit.request, selfOrigin(visit));
    const form = await readForm(visit.request);
    const session = await accounts.session(sessionTokenOf(visit.request));
    if (session === undefined || session === 'expired') return redirect('/account', [clearedSessionCookie(visit.secure)]);
    if (!csrfTokenMatches(session.token, form.get('csrf'))) {
      throw new ApiError(
        'FORBIDDEN',
        'The form was stale or not from this page (its CSRF token did not match): reload the account page and try again.',
      );
    }
    return handler(visit, session, form);
  };

/** Log-in and sign-up: errors re-render the page, the refusal in the form sent and the email kept, instead of a bare error. */
const credentialsForm =
  (accounts: Accounts, form: EntryForm, act: (email: string, password: string, visit: Visit) => Promise<string>): Handler =>
  async (visit) => {
    checkSameOrigin(visit.request, selfOrigin(visit));
    const fields = await readForm(visit.request);
    const email = fields.get('email') ?? '';
    try {
      const token = await act(email, fields.get('password') ?? '', visit);
      return redirect(nextPage(fields.get('next')), [sessionCookie(token, visit.secure)]);
    } catch (error) {
      if (!(error instanceof ApiError) || !prefersHtml(visit.request)) throw error;
      return htmlResponse(
        signInPage({
          signupOpen: accounts.signupOpen,
          email: email.slice(0, 254),
          refusal: { form, message: clientMessage(error) },
          next: nextPage(fields.get('next')),
        }),
        error.status,
        errorHeaders(error),
      );
    }
  };

/** Where a sign-in continues: the consent step it was asked from (an agent's authorization), else the account page. */
function nextPage(next: string | null): string {
  return next !== null && CONSENT_PATH.test(next) ? next : '/account';
}

const bucketOf = (visit: Visit) => requestContextOf(visit.serverContext).clientBucket;
export const selfOrigin = (visit: Visit) => `${visit.tls ? 'https:' : 'http:'}//${visit.url.host}`;

/**
 * The create form's expiry: its choice (`none`, `30`, `60`, `90`, `date`) and the date field. A date
 * filled in under the default choice (Never) means that date; beside a number of days it is a mistake.
 */
function expiryOf(form: URLSearchParams, now: Date): string | null {
  const choice = form.get('expires') ?? 'none';
  const date = form.get('expiresOn')?.trim() ?? '';
  if (date === '') return keyExpiryFromChoice(choice, date, now);
  if (choice !== 'none' && choice !== 'date') {
    throw new ApiError('INVALID_REQUEST', `Choose either ${choice} days or a date (${date.slice(0, 20)}), not both.`, { param: 'expires' });
  }
  return keyExpiryFromChoice('date', date, now);
}

function envOf(value: string): KeyEnv {
  if (value !== 'test' && value !== 'live')
    throw new ApiError('INVALID_REQUEST', `The environment must be test or live (got '${value.slice(0, 20)}').`, { param: 'env' });
  return value;
}
