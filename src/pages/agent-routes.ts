import { ApiError } from '../domain/errors';
import type { Accounts } from '../services/accounts';
import type { AgentAuthorization } from '../services/oauth/agents';
import { answerConsent, consentRequest } from '../services/oauth/consent';
import { type AccountRoute, CONSENT_PATH, withSession } from './account-routes';
import { consentPage } from './agent-views';
import { htmlResponse, PAGE_CSP, redirect, sessionTokenOf } from './page-http';
import { signInPage } from './views';

const GRANT_ID = '([0-9a-f]{64})';

/**
 * The agents' pages: the consent step of an authorization (GET shows who asks and for what, to an
 * account signed in here, else the sign-in form that comes back to it; POST allows or denies and
 * continues at the authorization server), and revoking a connected agent.
 */
export function agentRoutes(accounts: Accounts, agents: AgentAuthorization): AccountRoute[] {
  return [
    [
      CONSENT_PATH,
      {
        GET: async ({ request, pathId, tls }) => {
          const session = await accounts.session(sessionTokenOf(request));
          if (session === undefined || session === 'expired') {
            return htmlResponse(signInPage({ signupOpen: accounts.signupOpen, next: `/account/oauth/${pathId!}` }));
          }
          const asked = await consentRequest(await agents.provider(), request.headers.get('cookie'), pathId!, tls);
          // The answer continues, through the provider, at the client's redirect_uri: the form may go there.
          const target = URL.canParse(asked.redirectUri) ? ` ${new URL(asked.redirectUri).origin}` : '';
          return htmlResponse(consentPage(session, asked, accounts.serverEnv), 200, {
            'content-security-policy': PAGE_CSP.replace("form-action 'self'", `form-action 'self'${target}`),
          });
        },
        POST: withSession(accounts, async (visit, session, form) => {
          const decision = form.get('decision');
          if (decision !== 'allow' && decision !== 'deny') {
            throw new ApiError('INVALID_REQUEST', 'Choose Allow or Deny.', { param: 'decision' });
          }
          const cookie = visit.request.headers.get('cookie');
          const next = await answerConsent(
            await agents.provider(),
            { cookie, uid: visit.pathId!, secure: visit.tls },
            session.account,
            agents.resource,
            decision === 'allow',
          );
          return redirect(next);
        }),
      },
    ],
    [
      new RegExp(`^/account/agents/${GRANT_ID}/revoke$`),
      {
        POST: withSession(accounts, async (visit, session) => {
          await agents.revoke(session.account, visit.pathId!);
          return redirect('/account#agents');
        }),
      },
    ],
  ];
}
