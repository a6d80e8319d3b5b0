import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../domain/passwords';
import { NEXT_STEP, PLAN_CHANGE } from '../domain/errors';
import { groupThousands } from '../domain/quota';
import type { AccountOverview, AccountSession, Flash } from '../services/accounts';
import { html, type SafeHtml } from './html';
import { createKeyForm, keysTable, newKeySection } from './key-views';
import { csrfField, layout, message } from './layout';
import { usageChart } from './usage-chart';
import { newWebhookSection, webhooksSection } from './webhook-views';
import { agentsSection } from './agent-views';
import type { ConnectedAgent } from '../services/oauth/agents';

export { confirmRevokePage, confirmRotatePage } from './key-views';
export { confirmRemoveWebhookPage } from './webhook-views';

/** The account page's views: plain HTML forms that work without JavaScript. */

export interface SignInView {
  signupOpen: boolean;
  email?: string;
  /** The refusal of the form just sent: shown in that form's section, whose password field gets the focus. */
  refusal?: { form: EntryForm; message: string };
  notice?: string;
  /** Where to continue once signed in (an agent's consent step); the account page by default. */
  next?: string;
}

export type EntryForm = 'signup' | 'login';

/**
 * Two forms, each with its own Email, Password and button, so that Enter sends the form it is
 * pressed in: "Create an account" (sign-up, first, with the password rule the server enforces) and
 * "Log in". A refused form keeps the email in both, so a log-in with an email that has no account
 * is one password away from a sign-up.
 */
export function signInPage(view: SignInView): string {
  const next = view.next && view.next !== '/account' ? html`<input type="hidden" name="next" value="${view.next}">` : '';
  // A sign-up refused because sign-up is closed has no form of its own to be shown in.
  const refusedIn = view.refusal?.form === 'signup' && !view.signupOpen ? 'login' : view.refusal?.form;
  const refusal = (form: EntryForm) => (refusedIn === form ? message(view.refusal?.message, 'error') : '');
  const focus = (form: EntryForm) => (refusedIn === form ? html` autofocus` : '');
  return layout(
    'Your account',
    html`
<h1>Measurement API account</h1>
${message(view.notice, 'notice')}
<div class="entry">
${view.signupOpen ? signUpSection(view, next, refusal('signup'), focus('signup')) : ''}
<section aria-labelledby="login-title">
  <h2 id="login-title">${view.signupOpen ? 'Have an account? Log in' : 'Log in'}</h2>
  ${refusal('login')}
  <form method="post" action="/account/login" aria-labelledby="login-title">
    ${next}
    <label for="login-email">Email</label>
    <input id="login-email" name="email" type="email" autocomplete="username" required maxlength="254" value="${view.email ?? ''}">
    <label for="login-password">Password</label>
    <input id="login-password" name="password" type="password" autocomplete="current-password" required maxlength="${MAX_PASSWORD_LENGTH}"${focus('login')}>
    <button type="submit">Log in</button>
  </form>
  ${view.signupOpen ? '' : html`<p class="muted">Sign-up is closed on this server: the operator creates accounts.</p>`}
</section>
</div>`,
  );
}

/** The sign-up form: its password field carries the policy's minimum as `minlength` and says it beside the field. */
function signUpSection(view: SignInView, next: SafeHtml | '', refusal: SafeHtml | '', focus: SafeHtml | ''): SafeHtml {
  return html`<section id="signup" aria-labelledby="signup-title">
  <h2 id="signup-title">New here? Create an account</h2>
  ${refusal}
  <form method="post" action="/account/signup" aria-labelledby="signup-title">
    ${next}
    <label for="signup-email">Email</label>
    <input id="signup-email" name="email" type="email" autocomplete="username" required maxlength="254" value="${view.email ?? ''}">
    <label for="signup-password">Password</label>
    <input id="signup-password" name="password" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}" maxlength="${MAX_PASSWORD_LENGTH}" aria-describedby="signup-password-hint"${focus}>
    <p id="signup-password-hint" class="muted">At least ${MIN_PASSWORD_LENGTH} characters; a few unrelated words make a good one.</p>
    <button type="submit">Sign up</button>
  </form>
</section>`;
}

/** The signed-in page; `origin` is this server's (where MCP clients connect, shown beside a new key). */
export function dashboardPage(
  session: AccountSession,
  overview: AccountOverview,
  flash: Flash | undefined,
  origin: string,
  agents?: readonly ConnectedAgent[],
): string {
  const { usage } = overview;
  return layout(
    'Your account',
    html`
<header>
  <h1>Your account</h1>
  <form method="post" action="/account/logout">${csrfField(session)}<button type="submit" class="secondary">Log out</button></form>
</header>
${flash ? message(flash.notice, 'notice') : ''}
${flash?.newKey ? newKeySection(flash.newKey, origin) : ''}
${flash?.newWebhook ? newWebhookSection(flash.newWebhook) : ''}
<p>Signed in as <strong>${session.account.email ?? session.account.id}</strong>.</p>
<h2>Plan and usage</h2>
<p>Plan: <strong>${overview.plan}</strong>. To change plans, ${PLAN_CHANGE}.</p>
<p id="usage">${groupThousands(usage.used)} of ${groupThousands(usage.limit)} conversions used this month (${usage.month}); resets on ${usage.resetsAt.slice(0, 10)} at 00:00 UTC.</p>
<progress aria-labelledby="usage" max="${usage.limit}" value="${Math.min(usage.used, usage.limit)}">${Math.floor((usage.used / usage.limit) * 100)}%</progress>
<p id="quota-remaining">${groupThousands(usage.remaining)} conversions remain this month.${usage.remaining === 0 ? ` ${NEXT_STEP.QUOTA_EXCEEDED}` : ''}</p>
<h3 id="usage-days">The last ${overview.days.length} days</h3>
<figure class="chart" aria-labelledby="usage-days">
${usageChart(overview.days)}
<figcaption class="muted">Conversions delivered (charged to the quota), and requests refused because the monthly quota was used up or the per-second rate limit was hit, per UTC day; today is the last bar.</figcaption>
</figure>
<h2>Create a key</h2>
<p class="muted" id="key-bound">An account holds up to ${groupThousands(overview.bounds.liveKeys)} live keys (not revoked and not expired): revoke one to make room for another; rotating a key is always possible.</p>
${createKeyForm(session, overview.serverEnv, overview.now)}
<h2>Your keys</h2>
${keysTable(overview.keys, overview.now)}
${webhooksSection(session, overview.webhooks, overview.bounds.webhookEndpoints)}
${agents ? agentsSection(session, agents) : ''}`,
    flash?.newKey !== undefined || flash?.newWebhook !== undefined,
  );
}

export function errorPage(title: string, text: string): string {
  return layout(
    title,
    html`
<h1>${title}</h1>
${message(text, 'error')}
<p><a href="/account">Back to your account</a></p>`,
  );
}
